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

import keyword

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
