"""Sizes of a text as DESIGN.md defines them: tokens, bytes, non-blank lines, AST nodes.

*Tokens* are Python tokens as the standard ``tokenize`` module counts them,
leaving out ENCODING, NL, NEWLINE, INDENT, DEDENT, COMMENT and ENDMARKER.
For text that does not tokenize (not Python, or broken Python) a simple
word/punctuation split stands in, so every strategy can report a size.
"""

from __future__ import annotations

import ast
import io
import keyword
import re
import tokenize
import warnings
from dataclasses import dataclass

_IGNORED = frozenset(
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
        return [t for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type not in _IGNORED]
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None


def measure(text: str) -> Size:
    tokens = python_tokens(text)
    if tokens is not None:
        count = len(tokens)
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
