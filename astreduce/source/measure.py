"""Sizes of a text as docs/results.md defines them: tokens, bytes, non-blank lines, AST nodes.

:class:`Size` is the one measure of a candidate; :func:`size_change` estimates,
for the transforms, how a proposal changes it.

*Tokens* are Python tokens as the standard ``tokenize`` module counts them,
leaving out ENCODING, NL, NEWLINE, INDENT, DEDENT, COMMENT and ENDMARKER;
an f-string counts as 3.12's tokenizer splits it (its fields' code included)
under every interpreter (:func:`astreduce.source.fstrings.token_count`).
For text that does not tokenize (not Python, or broken Python) a simple
word/punctuation split stands in, so every strategy can report a size.
"""

from __future__ import annotations

import ast
import io
import keyword
import re
import sys
import tokenize
import warnings
from collections.abc import Callable
from dataclasses import dataclass

from astreduce.source.difference import common_length
from astreduce.source.fstrings import token_count
from astreduce.source.statements import class_parts, member_starts, starts

#: Token kinds the count leaves out (docs/results.md, "Sizes") (the text passes skip them too).
NOT_COUNTED = frozenset(
    {
        tokenize.ENCODING,
        tokenize.NL,
        tokenize.NEWLINE,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.COMMENT,
        tokenize.ENDMARKER,
    }
)
_WORDS = re.compile(r"\w+|[^\w\s]")


@dataclass(frozen=True, slots=True)
class Size:
    """How big a candidate is."""

    tokens: int
    bytes: int
    lines: int
    identifiers: int
    """Name tokens that are not keywords: a replacement of a name by a constant lowers this."""

    @property
    def key(self) -> tuple[int, int, int]:
        """The order in which "smaller" is judged: tokens, then identifiers, then bytes."""
        return (self.tokens, self.identifiers, self.bytes)


def python_tokens(text: str) -> list[tokenize.TokenInfo] | None:
    """The significant tokens of ``text``, or ``None`` when it does not tokenize."""
    try:
        return [t for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type not in NOT_COUNTED]
    except (tokenize.TokenError, SyntaxError, ValueError, SystemError):  # SystemError: 3.12-3.13's tokenizer
        return None  # on some broken f-strings


def measure(text: str) -> Size:
    counted = _token_counts(text)
    if counted is None:
        words = _WORDS.findall(text)
        counted = len(words), sum(1 for w in words if w[0].isalpha() or w[0] == "_")
    return _size_of(text, counted)


def _size_of(text: str, counted: tuple[int, int]) -> Size:
    return Size(
        tokens=counted[0],
        bytes=len(text.encode("utf-8", errors="surrogateescape")),
        lines=sum(1 for line in text.splitlines() if line.strip()),
        identifiers=counted[1],
    )


def _token_counts(text: str, clean: bool = False) -> tuple[int, int] | None:
    """(tokens, identifiers) of ``text`` as :func:`measure` counts them, or None when it does not tokenize
    (with ``clean``, also when it leaves something open: see :func:`_ends_clean`)."""
    tokens = python_tokens(text)
    if tokens is None or clean and not _ends_clean(tokens):
        return None
    count = len(tokens)
    if sys.version_info < (3, 12):  # an f-string is one token there: count its fields as 3.12 does
        count += sum(token_count(t.string) - 1 for t in tokens if t.type == tokenize.STRING)
    return count, sum(1 for t in tokens if t.type == tokenize.NAME and not keyword.iskeyword(t.string))


def _ends_clean(tokens: list[tokenize.TokenInfo]) -> bool:
    """Whether a piece's tokens leave nothing open: no error token (after which the standard tokenizer
    carries state into the lines that follow), every bracket and f-string closed (3.13's tokenizer
    may end a piece inside an f-string without an error)."""
    depth = 0
    for token in tokens:
        kind = token.type
        if kind == tokenize.ERRORTOKEN:
            return False
        if kind == tokenize.OP:
            if token.string in _OPENING:
                depth += 1
            elif token.string in _CLOSING:
                depth -= 1
                if depth < 0:
                    return False
        elif kind == _FSTRING_START:
            depth += 1
        elif kind == _FSTRING_END:
            depth -= 1
    return depth == 0


#: The tokens that open and close an f-string (3.12 on; an f-string is one STRING token before).
_FSTRING_START = getattr(tokenize, "FSTRING_START", -1)
_FSTRING_END = getattr(tokenize, "FSTRING_END", -3)
_OPENING, _CLOSING = frozenset("([{"), frozenset(")]}")


class Measure:
    """:func:`measure` for the many candidates of one reduction, at the cost of their changes.

    Tokenizing a 2,600-line candidate costs more than half a test, and the
    next candidate differs from it in one statement. The tokens of a text are
    the tokens of its top-level statements one after the other: at the start
    of a line that begins a statement no bracket, string or backslash is
    open, so the tokenizer starts afresh there. So the text is cut where
    statements may start (:func:`astreduce.source.statements.starts`, less a
    line that begins with a backslash, which joins it to the next), each
    piece is counted once per reduction (a cache by its text), and the counts
    are added. A cut that is no statement's start (a line at column 0 inside a
    docstring or brackets, after a backslash) leaves a piece that does not
    tokenize: it takes the next piece, then two, four... So does a piece with
    an error token (an unclosed quote), after which the standard tokenizer
    carries state into the lines that follow. A text whose last piece still
    does not tokenize cleanly is measured whole, as :func:`measure` does.
    A large class is cut the same way at its members' starts, so that a
    candidate that changed one method tokenizes that method.
    """

    def __init__(self, kept_chars: int = 4 << 20, class_from: int = 2048) -> None:
        self._counts: dict[str, tuple[int, int] | None] = {}
        self._chars = 0
        self._kept_chars = kept_chars
        """The pieces' text kept at most (the oldest is dropped first)."""
        self._class_from = class_from
        """A class this long or longer is counted member by member (see :meth:`_class`)."""

    def __call__(self, text: str) -> Size:
        cuts = [cut for cut in starts(text) if not text.startswith("\\", cut)]
        counted = self._pieces(text, cuts, self._statement)
        return measure(text) if counted is None else _size_of(text, counted)

    def _pieces(self, text: str, cuts: list[int], count: Callable[[str], tuple[int, int] | None]) -> tuple[int, int] | None:
        """The counts of ``text`` cut at ``cuts``, each piece counted by ``count``; None if the last piece
        still does not tokenize cleanly."""
        if not cuts or cuts[0] != 0:
            cuts.insert(0, 0)  # comments and blank lines before the first statement: a piece of their own
        ends = [*cuts[1:], len(text)]
        tokens = identifiers = 0
        index = 0
        while index < len(cuts):
            width = 1
            while True:
                last = min(len(cuts), index + width) - 1
                counted = count(text[cuts[index] : ends[last]])
                if counted is not None:
                    break
                if last == len(cuts) - 1:
                    return None
                width *= 2
            tokens += counted[0]
            identifiers += counted[1]
            index = last + 1
        return tokens, identifiers

    def _statement(self, piece: str) -> tuple[int, int] | None:
        if len(piece) >= self._class_from and piece not in self._counts:
            counted = self._class(piece)
            if counted is not None:
                return counted
        return self._piece(piece)

    def _class(self, piece: str) -> tuple[int, int] | None:
        """A large class's counts: its header's and its members' (a candidate that changed one method of
        a 38 KB class tokenizes that method). A member starts at the body's indentation, so nothing
        in it dedents past its first line; None if the header does not tokenize alone (it spans lines)."""
        parts = class_parts(piece)
        if parts is None:
            return None
        header, indent, _ = parts
        counted = self._piece(header)
        if counted is None:
            return None
        body = piece[len(header) :]
        members = self._pieces(body, starts(body, *member_starts(indent)), self._piece)
        if members is None:
            return None
        return counted[0] + members[0], counted[1] + members[1]

    def _piece(self, piece: str) -> tuple[int, int] | None:
        if piece in self._counts:
            return self._counts[piece]
        counted = self._counts[piece] = _token_counts(piece, clean=True)
        self._chars += len(piece)
        while self._chars > self._kept_chars and len(self._counts) > 1:
            oldest = next(iter(self._counts))
            self._chars -= len(oldest)
            del self._counts[oldest]
        return counted


def ast_nodes(text: str) -> int | None:
    """Number of AST nodes, or ``None`` when the text does not parse."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return sum(1 for _ in ast.walk(ast.parse(text)))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


_TOKEN = re.compile(
    r"""
    (?P<string>[rRbBuUfF]{0,2}(?:'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\"|'(?:\\.|[^\\'\n])*'|"(?:\\.|[^\\"\n])*"))
    | (?P<number>\d[\w.]*(?:[eE][+-]?\d+)?j?|\.\d\w*)
    | (?P<name>[^\W\d]\w*)
    | (?P<comment>\#[^\n]*)
    | (?P<op>\*\*=?|//=?|->|:=|<<=?|>>=?|[-+*/%@&|^=!<>]=|\.\.\.|[-+*/%@&|^~<>=.,:;()\[\]{}])
    | (?P<other>\S)
    """,
    re.VERBOSE | re.DOTALL,
)


def _approximate(text: str) -> tuple[int, int, int]:
    """Tokens, identifiers and characters of a fragment, by a regular expression (no tokenizer state)."""
    tokens = identifiers = 0
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind == "comment":
            continue
        tokens += token_count(match.group()) if kind == "string" else 1
        if kind == "name" and not keyword.iskeyword(match.group()):
            identifiers += 1
    return tokens, identifiers, len(text)


def size_change(text: str, candidate: str) -> tuple[int, int, int]:
    """(tokens, identifiers, characters) of ``candidate`` minus those of ``text``, on the changed lines.

    An estimate in the order of :attr:`Size.key` (characters standing in for
    bytes), cheap enough for a transform to drop every proposal that would not
    shrink the program before it costs a test: the regular expression needs
    no tokenizer state, so it reads the changed lines only.
    """
    limit = min(len(text), len(candidate))
    start = common_length(text, candidate, limit)
    suffix = common_length(text, candidate, limit - start, from_end=True)
    start = text.rfind("\n", 0, start) + 1
    end = len(text) - suffix
    newline = text.find("\n", end)
    end = len(text) if newline < 0 else newline
    delta = len(candidate) - len(text)
    old = _approximate(text[start:end])
    new = _approximate(candidate[start : end + delta])
    return (new[0] - old[0], new[1] - old[1], new[2] - old[2])
