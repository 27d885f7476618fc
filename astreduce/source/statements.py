"""Where a text's top-level statements (or a class's members) may start, found without parsing.

A module's code is the code of its top-level statements one after the
other, and each statement compiles the same alone: so a candidate that
changes one function need only compile that function's statement, for its
key (:mod:`astreduce.oracles.alike`) and for its test
(:mod:`astreduce.oracles.pieces`). A line is taken for a statement's start
by its first character alone; one that is not a start (inside a docstring
or brackets, after a decorator or a backslash) leaves a piece that does not
compile but may with the lines after it (:func:`incomplete`): such a piece
takes the next.
"""

from __future__ import annotations

import bisect
import functools
import re
import symtable
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

from astreduce.source.difference import common_length

__all__ = [
    "NEXT_STATEMENT", "STATEMENT_START", "Cut", "Recut", "class_parts", "declares_global", "incomplete", "member_starts",
    "recut", "starts",
]

#: Where a top-level statement may start: a line's first character, not blank, not a comment, not what
#: continues the statement before (a closing bracket, ``else``, ``elif``, ``except``, ``finally``); a
#: decorator's line starts its function's statement, and the lines after it are that statement's.
_STARTS = r"(?![\s#)\]}]|(?:else|elif|except|finally)\b)"
STATEMENT_START = re.compile(_STARTS)
NEXT_STATEMENT = re.compile(r"\n" + _STARTS)  # a newline first: the regex engine finds them fast


def starts(text: str, first: re.Pattern[str] = STATEMENT_START, after: re.Pattern[str] = NEXT_STATEMENT) -> list[int]:
    """Where pieces of ``text`` may start (at their lines' first character): at 0 if ``first`` matches there,
    then after the newline of each match of ``after`` (``first`` after a newline).

    The last answer is kept for the same text object: a candidate's key, its test's compile and its
    measure each ask, and a 100 KB candidate costs the regular expression 0.2 ms. A new list each time:
    callers change theirs.
    """
    global _last
    last = _last
    if last[0] is text and last[1] is first and last[2] is after:
        return list(last[3])
    found = [m.start() + 1 for m in after.finditer(text)]
    if first.match(text):
        found.insert(0, 0)
    _last = (text, first, after, tuple(found))
    return found


_last: tuple[str | None, re.Pattern[str] | None, re.Pattern[str] | None, tuple[int, ...]] = (None, None, None, ())


@dataclass(frozen=True)
class Cut:
    """A text cut into pieces at some of its :func:`starts`: each piece one statement, or several where
    one did not compile alone and took the next. The next text is cut from it (:func:`recut`)."""

    text: str
    starts: tuple[int, ...]
    """Every place a piece may start (:func:`starts`)."""
    pieces: tuple[int, ...]
    """Where each piece starts; one ends where the next starts, the last with the text."""


@dataclass(frozen=True)
class Recut:
    """How a text is cut from the :class:`Cut` of one before it: it has the old cut's first ``head``
    pieces, at the same places; from the end of those on it is cut at ``starts``; and where the cut of
    it reaches a place in ``tail``, the pieces from there to the end are the old cut's, ``shift`` later."""

    head: int
    starts: list[int]
    tail: dict[int, int]
    """A place in the text → the index of the old cut's piece that starts there."""
    shift: int


#: How far past a place the text decides whether a statement starts there (the longest word the
#: pattern looks at, ``finally``, and the boundary after it), with room to spare.
_DECIDED = 16


def recut(cut: Cut, text: str) -> Recut | None:
    """How to cut ``text`` from ``cut`` at the cost of what changed (None: nothing before the change to
    keep; cut it whole).

    ``text`` and the old text share a prefix and a suffix. A piece that ends
    well inside the prefix is the same piece of ``text`` (its statements and
    whether it compiles alone are in its own text, and where the next one
    starts is decided by the characters just after it). So are the starts
    inside the suffix, and a piece that starts at one of them, once the cut
    of the changed middle reaches it: the pieces after it are the old ones.
    Only the middle is searched for starts.
    """
    old = cut.text
    limit = min(len(old), len(text))
    prefix = common_length(old, text, limit)
    suffix = common_length(old, text, limit - prefix, from_end=True)
    pieces = cut.pieces
    head = bisect.bisect_right(pieces, prefix - _DECIDED) - 1  # the pieces that end (where the next starts) in the prefix
    if head <= 0:
        return None
    resume = pieces[head]  # a start in both texts, after a newline
    shift = len(text) - len(old)
    same_from = len(old) - suffix + 1  # a start here or later: its newline and the text after it are the suffix's
    tail_starts = [at + shift for at in cut.starts[bisect.bisect_left(cut.starts, same_from) :]]
    # up to the first start of the suffix, its newline included: the newlines before it see what follows them
    end = tail_starts[0] if tail_starts else len(text)
    middle = [m.start() + 1 for m in NEXT_STATEMENT.finditer(text, resume - 1, end)]
    if tail_starts and middle and middle[-1] == end:  # that newline, seen as the text's last character
        middle.pop()
    tail = {at + shift: index for index, at in enumerate(pieces) if at >= same_from}
    return Recut(head, middle + tail_starts, tail, shift)


@functools.lru_cache(maxsize=16)
def member_starts(indent: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Where a class member indented by ``indent`` may start (see :func:`starts`), once per indentation."""
    member = re.compile(re.escape(indent) + _STARTS)
    return member, re.compile("\n" + member.pattern)


#: How far into a top-level statement its ``class`` line is looked for (past the decorators).
_HEADER_LOOKS = 1024
_CLASS_LINE = re.compile(r"^class[ \t]+(\w+)[^\n]*\n", re.MULTILINE)
#: A line before the class line that is no decorator's (nor a comment or a decorator's continuation).
_NOT_A_DECORATOR = re.compile(r"^[^@\s#]", re.MULTILINE)
#: The class body's first line: indented, not blank, not a comment.
_BODY_LINE = re.compile(r"^([ \t]+)[^\s#]", re.MULTILINE)


def class_parts(piece: str) -> tuple[str, str, str] | None:
    """A top-level class statement's header (its decorators, comments and ``class`` line), its body's
    indentation and its name, cut without parsing; None if ``piece`` does not look like a class whose body
    starts on a line of its own. Whether the cut is right is for a compile to tell (a header over several
    lines, say, does not compile alone)."""
    line = _CLASS_LINE.search(piece, 0, _HEADER_LOOKS)
    if line is None or _NOT_A_DECORATOR.search(piece, 0, line.start()) is not None:
        return None  # only decorators may come before the class line
    body = _BODY_LINE.search(piece, line.end())
    if body is None:
        return None
    return piece[: body.start()], body.group(1), line.group(1)


#: compile()'s flags that tell input which more lines may complete (``codeop``'s) from a plain error.
_INCOMPLETE_FLAGS = 0x4000 | 0x200  # PyCF_ALLOW_INCOMPLETE_INPUT | PyCF_DONT_IMPLY_DEDENT


def incomplete(text: str) -> bool:
    """Whether ``text``, which does not compile, may compile with more lines after it (an open bracket,
    string or block, a decorator, a backslash): only then can a piece of a candidate take the next."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, "<candidate>", "exec", _INCOMPLETE_FLAGS, dont_inherit=True)
    except SyntaxError as error:
        return error.msg == "incomplete input"
    except ValueError as error:  # flags this Python does not know (before 3.11): more lines may help
        return "flags" in str(error)
    except (RecursionError, MemoryError):
        return False
    return True  # compiles with the flags, not without: the last piece without its newline, say




def _found(text: str, word: str) -> Iterator[int]:
    """Where ``word`` occurs in ``text`` (``str.find``: a regular expression reads a 90 KB text 20 times slower)."""
    at = text.find(word)
    while at >= 0:
        yield at
        at = text.find(word, at + 1)


def _may_declare(unit: str, at: int) -> bool:
    """Whether the word at ``at`` may begin a statement: only blanks before it on its line, or after a
    ``;`` or a block's ``:`` (a comment or a string that says "global" may pass too; the symbol table decides)."""
    before = unit[unit.rfind("\n", 0, at) + 1 : at].rstrip(" \t\f")
    return not before or before[-1] in ";:"


def declares_global(unit: str, classes: bool = False) -> bool:
    """Whether ``unit`` (which compiles) declares a name global or nonlocal at module level (or, with
    ``classes``, in a top-level class's body): that changes how the statements after it compile, so a
    text with one is compiled whole. A text with no such statement anywhere is answered without its symbol
    table (a comment that says "global" in a 40 KB class cost stdlib_argparse a second)."""
    if not any(_may_declare(unit, at) for word in ("global", "nonlocal") for at in _found(unit, word)):
        return False
    table = symtable.symtable(unit, "<candidate>", "exec")
    scopes = [table, *(child for child in table.get_children() if classes and child.get_type() == "class")]
    return any(symbol.is_declared_global() or symbol.is_nonlocal() for scope in scopes for symbol in scope.get_symbols())
