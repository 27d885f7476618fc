"""The text around a node's span: blanks, comments and the redundant parentheses a span leaves out.

``ast`` positions cover a node's own text. The tree model grows them over
what goes with the node (its redundant parentheses) and steps over what
separates nodes (blanks, line continuations, comments), and both must read a
comment as a comment: in ``(a or  # note\n (b and c))`` the word ``note``
is not a callee of ``(b and c)``. Only the standard library is used here:
``tree.py`` also runs alone under another interpreter
(:mod:`astreduce.source.wire`).
"""

from __future__ import annotations

import ast
import bisect
import keyword
import re
from collections.abc import Callable, Iterable

#: What separates tokens without being one: blanks and line continuations.
SPACE = " \t\f\r\n\\"
#: Keywords after which ``(`` opens a parenthesised expression, not a call.
_KEYWORDS = frozenset(keyword.kwlist) - {"None", "True", "False"}
_TRIPLE = ("'''", '"""')


def widen(text: str, start: int, end: int) -> tuple[int, int]:
    """Grow an expression's span over the redundant parentheses around it.

    ``ast`` spans leave such parentheses out, so dropping or hoisting the bare
    span would leave one parenthesis behind. A ``(`` counts as redundant when
    it does not open a call: the text before it does not end an atom.
    """
    if start == 0 or end >= len(text):
        return start, end
    last, next_ = text[start - 1], text[end]  # most spans touch what no parenthesis can be
    if (last not in SPACE and last != "(") or (next_ not in SPACE and next_ != "#" and next_ != ")"):
        return start, end
    while True:
        before = back(text, start - 1)
        after = forward(text, end)
        if before < 0 or after >= len(text) or text[before] != "(" or text[after] != ")":
            return start, end
        previous = back(text, before - 1)
        if previous >= 0:
            last = text[previous]
            if last in ")]}\"'":
                return start, end
            if last.isalnum() or last == "_" or not last.isascii():
                word_start = previous
                while word_start > 0 and (text[word_start - 1].isalnum() or text[word_start - 1] == "_"):
                    word_start -= 1
                if text[word_start : previous + 1] not in _KEYWORDS:
                    return start, end
        start, end = before, after + 1


def back(text: str, position: int) -> int:
    """The last offset at or before ``position`` that is neither blank nor in a comment (-1: none)."""
    while True:
        while position >= 0 and text[position] in SPACE:
            position -= 1
        if position < 0:
            return position
        line_start = text.rfind("\n", 0, position) + 1
        comment = comment_start(text, line_start, position + 1)
        if comment is None:
            return position
        position = comment - 1


def forward(text: str, position: int) -> int:
    """The first offset at or after ``position`` that is neither blank nor in a comment."""
    while True:
        while position < len(text) and text[position] in SPACE:
            position += 1
        if position >= len(text) or text[position] != "#":
            return position
        newline = text.find("\n", position)
        position = len(text) if newline < 0 else newline


def comment_start(text: str, start: int, end: int) -> int | None:
    """Where a comment begins in ``text[start:end]`` (within one line), outside string literals.

    The scan starts at ``start`` as if no string were open: on the last line
    of a triple-quoted string that began on an earlier line, a ``#`` inside
    the string reads as a comment (the tokenizer would know; this is cheap).
    """
    if "#" not in text[start:end]:
        return None
    quote = ""
    position = start
    while position < end:
        character = text[position]
        if quote:
            if character == "\\":
                position += 1
            elif text.startswith(quote, position):
                position += len(quote) - 1
                quote = ""
        elif character in "'\"":
            quote = text[position : position + 3] if text[position : position + 3] in _TRIPLE else character
            position += len(quote) - 1
        elif character == "#":
            return position
        position += 1
    return None


def star_before(text: str, offset: int) -> int:
    """The ``*`` that opens ``*args`` or a bare ``*`` marker before ``offset``."""
    return text.rfind("*", 0, offset)


#: A line break as ``ast`` counts lines.
_NEWLINE = re.compile(r"\r\n|\r|\n")


class Positions:
    """Converts ``ast`` (line, UTF-8 column) positions into character offsets."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.line_starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]
        self.ascii = text.isascii()
        """Whether a column is a character offset on every line (UTF-8 bytes are characters)."""
        self._ascii: dict[int, bool] = {}

    def offset(self, line: int, col: int) -> int:
        start = self.line_starts[line - 1]
        ascii_line = self._ascii.get(line)
        if ascii_line is None:  # one check per line: very long lines hold thousands of nodes
            end = self.line_starts[line] if line < len(self.line_starts) else len(self.text)
            ascii_line = self._ascii[line] = self.text[start:end].isascii()
        if ascii_line:
            return start + col
        end = self.line_starts[line] if line < len(self.line_starts) else len(self.text)
        encoded = self.text[start:end].encode("utf-8", errors="surrogateescape")
        return start + len(encoded[:col].decode("utf-8", errors="ignore"))

    def line_start(self, offset: int) -> int:
        """Offset of the start of the line holding ``offset``."""
        return self.line_starts[bisect.bisect_right(self.line_starts, offset) - 1]


def _extent(span_of: Callable[[ast.AST], tuple[int, int]], nodes: Iterable[ast.AST | None]) -> tuple[int, int]:
    spans = [span_of(n) for n in nodes if n is not None]
    return min(s for s, _ in spans), max(e for _, e in spans)


def synthetic_span(text: str, node: ast.AST, span_of: Callable[[ast.AST], tuple[int, int]]) -> tuple[int, int]:
    """The span of a node that ``ast`` leaves without a position (parameters, a comprehension's ``for``, a
    ``with`` item, a ``case``), from the spans of its parts (``span_of``) and the text around them."""
    if isinstance(node, ast.arguments):
        parts: list[ast.AST] = [
            *node.posonlyargs,
            *node.args,
            *[a for a in (node.vararg, node.kwarg) if a is not None],
            *node.kwonlyargs,
            *node.defaults,
            *[d for d in node.kw_defaults if d is not None],
        ]
        start, end = _extent(span_of, parts)
        if node.vararg is not None or node.kwonlyargs:
            first = node.vararg if node.vararg is not None else node.kwonlyargs[0]
            start = min(start, star_before(text, span_of(first)[0]))
        if node.kwarg is not None:
            start = min(start, text.rfind("**", 0, span_of(node.kwarg)[0]))
        if node.posonlyargs:  # the final "/" belongs to the parameters, as its element says
            last = len(node.posonlyargs) - 1
            default = last - (len(node.posonlyargs) + len(node.args) - len(node.defaults))
            last_end = span_of(node.defaults[default] if default >= 0 else node.posonlyargs[last])[1]
            end = max(end, text.index("/", last_end) + 1)
        after = end
        while after < len(text) and text[after] in SPACE:
            after += 1
        if after < len(text) and text[after] == ",":
            end = after + 1  # the trailing comma, so that the node covers its sequence
        return start, end
    if isinstance(node, ast.comprehension):
        target_start, _ = span_of(node.target)
        start = text.rfind("for", 0, target_start)
        if node.is_async:
            start = text.rfind("async", 0, start)
        _, end = _extent(span_of, [node.iter, *node.ifs])
        return start, end
    if isinstance(node, ast.withitem):
        return _extent(span_of, [node.context_expr] + ([node.optional_vars] if node.optional_vars else []))
    if isinstance(node, ast.match_case):
        pattern_start, _ = span_of(node.pattern)
        start = text.rfind("case", 0, pattern_start)
        _, end = _extent(span_of, node.body)
        return start, end
    raise ValueError(f"no span for {type(node).__name__}")  # pragma: no cover
