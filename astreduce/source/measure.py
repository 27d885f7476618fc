"""Sizes of a text as DESIGN.md defines them: tokens, bytes, non-blank lines, AST nodes.

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
from dataclasses import dataclass

from astreduce.source.fstrings import token_count

#: Token kinds that DESIGN.md's count leaves out (the text passes skip them too).
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
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None


def measure(text: str) -> Size:
    tokens = python_tokens(text)
    if tokens is not None:
        count = len(tokens)
        if sys.version_info < (3, 12):  # an f-string is one token there: count its fields as 3.12 does
            count += sum(token_count(t.string) - 1 for t in tokens if t.type == tokenize.STRING)
        identifiers = sum(1 for t in tokens if t.type == tokenize.NAME and not keyword.iskeyword(t.string))
    else:
        words = _WORDS.findall(text)
        count = len(words)
        identifiers = sum(1 for w in words if w[0].isalpha() or w[0] == "_")
    return Size(
        tokens=count,
        bytes=len(text.encode("utf-8", errors="surrogateescape")),
        lines=sum(1 for line in text.splitlines() if line.strip()),
        identifiers=identifiers,
    )


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
    start = _common(text, candidate, limit, False)
    suffix = _common(text, candidate, limit - start, True)
    start = text.rfind("\n", 0, start) + 1
    end = len(text) - suffix
    newline = text.find("\n", end)
    end = len(text) if newline < 0 else newline
    delta = len(candidate) - len(text)
    old = _approximate(text[start:end])
    new = _approximate(candidate[start : end + delta])
    return (new[0] - old[0], new[1] - old[1], new[2] - old[2])


def _common(a: str, b: str, limit: int, from_end: bool) -> int:
    """Length of the common prefix (or suffix) of ``a`` and ``b``, at most ``limit``, by bisection."""
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if (
            (a[len(a) - middle :] == b[len(b) - middle :])
            if from_end
            else (a[:middle] == b[:middle])
        ):
            low = middle
        else:
            high = middle - 1
    return low
