"""Text passes: edits of the program's text at syntax boundaries, for what the tree does not show.

Some failures live in the text, not in the syntax tree: black 20.8b1 fails
on ``del (),`` and formats ``del ()`` — one tree, two texts. The tree passes
always take an element together with its comma, so from ``del (a, b), c,``
they stop at ``del (), c,``; deleting the text ``, c`` reaches ``del (),``.
C-Vise, which knows nothing of Python, reaches such essences with passes over
the text; these are astreduce's, aimed at Python's syntax boundaries:

* ``text: nodes with separator`` / ``text: nodes`` — the text of every node,
  with the separator (comma, semicolon, operator) after it or before it, and
  alone (which keeps a trailing comma that the tree would take along);
* ``text: bracket contents`` — whatever lies between a matching ``(``/``)``,
  ``[``/``]``, ``{``/``}``;
* ``text: parentheses`` — a pair of grouping parentheses (not a call's);
* ``text: backslashes`` — a backslash continuation, lines joined;
* ``text: string prefixes`` — ``u``, ``r``, ``b``, ``f`` before a quote;
* ``text: lines`` — a line break inside brackets joined, a blank line
  and trailing blanks dropped, and ``a; b`` split into two lines (one
  token fewer; a split that only adds bytes is never smaller, so never kept);
* ``text: token runs`` — every run of two or more tokens at every offset
  (single tokens are the ``tokens`` pass's), on small results only:
  see :data:`TOKEN_RUN_LIMIT`.

Each pass is a function from the current text (and its tree, when it parses)
to a keep-list of edit groups; a group is the span replacements applied
together. Nothing here runs anything: :mod:`astreduce.search.strategies` runs
the passes through the session, and so through the scheduler (speculation,
``-j``, the cache), once the tree passes stall, and the tree passes again
when a text pass changed something. Groups of one pass may overlap (a node
and its parent, runs at neighbouring offsets); the renderer skips an edit
that overlaps one before it, so applying any set of groups renders a text.
"""

from __future__ import annotations

import bisect
import io
import keyword
import re
import tokenize
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from astreduce.source.measure import NOT_COUNTED
from astreduce.source.tree import Tree

#: Largest result (in tokens) on which the text passes run at all. A linear pass
#: proposes about three edits per node; the candidates that parse and differ from
#: what the tree passes tried are tests, and a text edit that pays starts another
#: round of every tree pass. On corpora/calc_tokenizer (stalled at 423 tokens) they
#: took 4 tokens off for 717 more tests (+21%); crash repros and the essences
#: they pay for are far smaller.
TEXT_PASS_LIMIT = 300

#: Largest result (in tokens) on which the token-run pass runs. Its keep-list is
#: quadratic (n(n-1)/2 runs: 1,225 at 50 tokens); most runs break the syntax and
#: cost a parse, not a test, and a run whose text a tree pass already tried is a
#: cache hit, but the runs that parse are tests too. Measured under the exec
#: oracle: on corpora/stdlib_fractions at 42 tokens, 112 tests took it to 27
#: tokens (and the next rounds to 7); on corpora/class_override at 80 tokens,
#: 425 tests found nothing.
TOKEN_RUN_LIMIT = 50

#: Largest result (in tokens) on which the linear passes' candidates that do not
#: parse are tested at all, under an oracle that runs a command (see
#: :func:`astreduce.search.strategies.run_text_passes`).
UNPARSABLE_LIMIT = 120

#: A span replacement (start, end, new text) in the text a pass was computed on.
SpanEdit = tuple[int, int, str]
Group = tuple[SpanEdit, ...]

#: What may separate a node from its neighbour: deleting it with the node keeps the rest well-formed.
SEPARATORS = frozenset(
    {",", ";", "+", "-", "*", "/", "//", "%", "**", "@", "<<", ">>", "&", "|", "^",
     "<", ">", "<=", ">=", "==", "!=", "and", "or", "in", "is", "=", ":=", "if", "else"}
)
_OPENERS = {"(": ")", "[": "]", "{": "}"}
_STRING_STARTS = frozenset({tokenize.STRING, getattr(tokenize, "FSTRING_START", -1)})
_STRING_PARTS = _STRING_STARTS | {getattr(tokenize, "FSTRING_MIDDLE", -2), getattr(tokenize, "FSTRING_END", -3)}
_CONTINUATION = re.compile(r"\\\r?\n[ \t]*")
_TRAILING_BLANKS = re.compile(r"(?<=\S)[ \t]+(?=\r?\n|\Z)")
_PREFIX = re.compile(r"[A-Za-z]+(?=['\"])")


@dataclass(frozen=True, slots=True)
class Token:
    """A token of the text with character offsets."""

    type: int
    string: str
    start: int
    end: int
    depth: int = 0
    """Brackets open around the token: inside them, line breaks do not end a statement."""


@dataclass(frozen=True, slots=True)
class Layout:
    """The text a pass works on, tokenized once: significant tokens and line breaks."""

    text: str
    tokens: tuple[Token, ...]
    """Significant tokens (the count of docs/results.md) in order."""
    breaks: tuple[Token, ...]
    """NL tokens: line breaks inside brackets and blank lines."""
    protected: tuple[tuple[int, int], ...]
    """Spans of string literals, f-string parts and comments: never edited inside, never joined into."""

    @property
    def starts(self) -> list[int]:
        return [t.start for t in self.tokens]


def layout_of(text: str) -> Layout | None:
    """Tokenize ``text`` once; ``None`` when it does not tokenize (then no text pass applies)."""
    offsets = [0]
    for line in io.StringIO(text):
        offsets.append(offsets[-1] + len(line))
    tokens: list[Token] = []
    breaks: list[Token] = []
    protected: list[tuple[int, int]] = []
    depth = 0
    try:
        for info in tokenize.generate_tokens(io.StringIO(text).readline):
            start = offsets[info.start[0] - 1] + info.start[1]
            end = offsets[info.end[0] - 1] + info.end[1] if info.end[0] <= len(offsets) - 1 else len(text)
            if info.type == tokenize.OP and info.string in ")]}":
                depth = max(0, depth - 1)
            token = Token(info.type, info.string, start, end, depth)
            if info.type == tokenize.OP and info.string in _OPENERS:
                depth += 1
            if info.type == tokenize.NL:
                breaks.append(token)
            if info.type in _STRING_PARTS or info.type == tokenize.COMMENT:
                protected.append((start, end))
            if info.type not in NOT_COUNTED and end > start:
                tokens.append(token)
    except (tokenize.TokenError, SyntaxError, ValueError, IndexError):
        return None
    return Layout(text, tuple(tokens), tuple(breaks), tuple(sorted(protected)))


def _blank_after(text: str, position: int) -> int:
    """The end of the spaces and tabs from ``position`` on."""
    while position < len(text) and text[position] in " \t":
        position += 1
    return position


def _blank_before(text: str, position: int) -> int:
    while position > 0 and text[position - 1] in " \t":
        position -= 1
    return position


# --- the passes ---------------------------------------------------------------


def node_text_with_separator(layout: Layout, tree: Tree | None) -> list[Group]:
    """Each node's text with the separator after it (and the blanks after that), or before it."""
    if tree is None:
        return []
    text, tokens, starts = layout.text, layout.tokens, layout.starts
    groups: list[Group] = []
    for start, end in _node_spans(tree):
        after = bisect.bisect_left(starts, end)
        if after < len(tokens) and _separates(text, tokens[after], end, tokens[after].start):
            groups.append(((start, _blank_after(text, tokens[after].end), ""),))
        before = bisect.bisect_left(starts, start) - 1
        if before >= 0 and _separates(text, tokens[before], tokens[before].end, start):
            groups.append(((_blank_before(text, tokens[before].start), end, ""),))
    return _unique(groups)


def _separates(text: str, token: Token, gap_start: int, gap_end: int) -> bool:
    """Whether ``token`` is a separator next to a node, with only blanks between them
    (a line break only inside brackets: never across two statements)."""
    gap = text[gap_start:gap_end]
    return token.string in SEPARATORS and not gap.strip() and ("\n" not in gap or token.depth > 0)


def node_text(layout: Layout, tree: Tree | None) -> list[Group]:
    """Each node's text alone: the separators around it stay (``(a, b),`` → ``(a, ),`` → ``(),``)."""
    if tree is None:
        return []
    text = layout.text
    return _unique([((start, _blank_after(text, end), ""),) for start, end in _node_spans(tree)])


def _node_spans(tree: Tree) -> Iterator[tuple[int, int]]:
    """Spans of the nodes below the module, outer first (a node before its children)."""
    for node in tree.nodes[1:]:
        if node.end > node.start:
            yield node.start, node.end


def bracket_contents(layout: Layout, tree: Tree | None) -> list[Group]:
    """The inside of each pair of brackets, outer pairs first."""
    text = layout.text
    return _unique([
        ((opening.end, closing.start, ""),)
        for opening, closing in _pairs(layout.tokens, "([{")
        if text[opening.end : closing.start].strip()
    ])


def parentheses(layout: Layout, tree: Tree | None) -> list[Group]:
    """Each pair of parentheses that groups (not a call's or a definition's), both at once."""
    tokens = layout.tokens
    index = {t.start: i for i, t in enumerate(tokens)}
    groups: list[Group] = []
    for opening, closing in _pairs(tokens, "("):
        position = index[opening.start]
        previous = tokens[position - 1] if position > 0 else None
        if previous is not None and _ends_atom(previous):
            continue  # a call, a definition's parameters, a class's bases
        groups.append(((opening.start, opening.end, ""), (closing.start, closing.end, "")))
    return groups


def _ends_atom(token: Token) -> bool:
    if token.type == tokenize.NAME:
        return not _is_keyword(token.string)
    return token.string in (")", "]", "}") or token.type in _STRING_PARTS or token.type == tokenize.NUMBER


def _is_keyword(word: str) -> bool:
    return keyword.iskeyword(word) or keyword.issoftkeyword(word)


def _pairs(tokens: tuple[Token, ...], openers: str) -> list[tuple[Token, Token]]:
    """Matching bracket pairs among ``openers``, in the order of their opening brackets."""
    stack: list[Token] = []
    found: list[tuple[Token, Token]] = []
    for token in tokens:
        if token.type != tokenize.OP:
            continue
        if token.string in _OPENERS:
            stack.append(token)
        elif token.string in (")", "]", "}") and stack:
            opening = stack.pop()
            if _OPENERS[opening.string] == token.string and opening.string in openers:
                found.append((opening, token))
    return sorted(found, key=lambda pair: pair[0].start)


def backslashes(layout: Layout, tree: Tree | None) -> list[Group]:
    """Each backslash continuation outside strings: the two lines joined by one space (none after a blank)."""
    text = layout.text
    groups: list[Group] = []
    for match in _CONTINUATION.finditer(text):
        if _in_spans(layout.protected, match.start()):
            continue
        blank_before = match.start() == 0 or text[match.start() - 1] in " \t\n"
        groups.append(((match.start(), match.end(), "" if blank_before else " "),))
    return groups


def _in_spans(spans: tuple[tuple[int, int], ...], position: int) -> bool:
    """Whether ``position`` lies in one of ``spans`` (sorted, not overlapping)."""
    at = bisect.bisect_right(spans, (position, _FAR)) - 1
    return at >= 0 and spans[at][0] <= position < spans[at][1]


_FAR = 1 << 62


def string_prefixes(layout: Layout, tree: Tree | None) -> list[Group]:
    """The whole prefix of each string literal, then each of its letters."""
    groups: list[Group] = []
    for token in layout.tokens:
        if token.type not in _STRING_STARTS:
            continue
        match = _PREFIX.match(token.string)
        if match is None:
            continue
        prefix = match.group()
        groups.append(((token.start, token.start + len(prefix), ""),))
        if len(prefix) > 1:
            groups.extend(((token.start + i, token.start + i + 1, ""),) for i in range(len(prefix)))
    return groups


def lines(layout: Layout, tree: Tree | None) -> list[Group]:
    """Line breaks inside brackets joined, blank lines and trailing blanks dropped, ``a; b`` split in two lines."""
    text = layout.text
    groups: list[Group] = []
    for newline in layout.breaks:
        line_start = text.rfind("\n", 0, newline.start) + 1
        if not text[line_start : newline.start].strip():
            groups.append(((line_start, newline.end, ""),))  # a blank line
            continue
        if _in_spans(layout.protected, _blank_before(text, newline.start) - 1):
            continue  # the line ends with a comment: joining would comment out the next one
        following = _blank_after(text, newline.end)
        joined = "" if text[newline.start - 1 : newline.start] in "([{ " or text[following : following + 1] in ")]}" else " "
        groups.append(((_blank_before(text, newline.start), following, joined),))
    for match in _TRAILING_BLANKS.finditer(text):
        if not _in_spans(layout.protected, match.start()):
            groups.append(((match.start(), match.end(), ""),))
    for token in layout.tokens:
        if token.string == ";":
            line_start = text.rfind("\n", 0, token.start) + 1
            indent = text[line_start : _blank_after(text, line_start)]
            groups.append(((_blank_before(text, token.start), _blank_after(text, token.end), "\n" + indent),))
    return groups


def token_runs(layout: Layout, tree: Tree | None) -> list[Group]:
    """Every run of two or more tokens at every offset, longest runs first (with the blanks after each run)."""
    text, tokens = layout.text, layout.tokens
    count = len(tokens)
    if count > TOKEN_RUN_LIMIT:
        return []
    groups: list[Group] = []
    for length in range(count - 1, 1, -1):
        for first in range(count - length + 1):
            last = tokens[first + length - 1]
            groups.append(((tokens[first].start, _blank_after(text, last.end), ""),))
    return groups


def _unique(groups: list[Group]) -> list[Group]:
    return list(dict.fromkeys(groups))


# --- the list -----------------------------------------------------------------


@dataclass(frozen=True)
class TextPass:
    """One text pass: its name in reports and how it finds its keep-list."""

    name: str
    propose: Callable[[Layout, Tree | None], list[Group]]
    quadratic: bool = False
    """Its keep-list grows with the square of the text: only on small results, only parsing candidates."""


#: The passes in the order a text round runs them: big deletions first, runs last.
PASSES: tuple[TextPass, ...] = (
    TextPass("text: nodes with separator", node_text_with_separator),
    TextPass("text: nodes", node_text),
    TextPass("text: lines", lines),  # before parentheses: a pair around lines it holds together cannot go
    TextPass("text: bracket contents", bracket_contents),
    TextPass("text: parentheses", parentheses),
    TextPass("text: backslashes", backslashes),
    TextPass("text: string prefixes", string_prefixes),
    TextPass("text: token runs", token_runs, quadratic=True),
)
