"""Where a text's top-level statements (or a class's members) may start, found without parsing.

A module's code is the code of its top-level statements one after the
other, and each statement compiles the same alone: so a candidate that
changes one function need only compile that function's statement, for its
key (:mod:`astreduce.search.alike`) and for its test
(:mod:`astreduce.oracles.pieces`). A line is taken for a statement's start
by its first character alone; one that is not a start (inside a docstring
or brackets, after a decorator or a backslash) leaves a piece that does not
compile but may with the lines after it (:func:`incomplete`): such a piece
takes the next.
"""

from __future__ import annotations

import functools
import re
import symtable
import warnings
from collections.abc import Iterator

__all__ = ["NEXT_STATEMENT", "STATEMENT_START", "class_parts", "declares_global", "incomplete", "member_starts", "starts"]

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
