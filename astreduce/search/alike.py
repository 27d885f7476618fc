"""Candidates alike by byte code, keyed at the cost of the change, not of the file.

Two programs with one byte code differ only in layout, comments and what
the compiler folds (parentheses, the spelling of a constant): an oracle
that runs the program in this interpreter (and matches the exception's
type, message and function, never its line) judges them alike, so a
candidate alike one already tested is not tested again.

Compiling a 2,600-line candidate to find its key costs more than the test
it may spare. A module's code is the code of its top-level statements one
after the other, and each statement compiles the same alone: its names at
module level are looked up at run time, its closures do not reach past it.
So :class:`CodeKey` splits a candidate at its top-level statements, keys
each one once (a cache by the statement's text) and joins the keys: a
candidate that changes one function compiles that function's statement,
not the file. A line taken for a statement's start that is not one
(inside a docstring or brackets, after a decorator or a backslash) leaves a
piece that does not compile: it takes the pieces after it until it does. A
text with a ``__future__`` import, which changes how the statements after
it compile, is keyed whole.
"""

from __future__ import annotations

import hashlib
import re
import time
import types
import warnings
from collections.abc import Callable

from astreduce.oracles.execution import PRECOMPILE_LIMIT
from astreduce.search.scheduler import digest

__all__ = ["CodeKey", "code_key"]

#: Where a top-level statement may start: a line's first character, not blank, not a comment, not what
#: continues the statement before (a closing bracket, ``else``, ``elif``, ``except``, ``finally``); a
#: decorator's line starts its function's statement, and the lines after it are that statement's.
_STATEMENT_START = re.compile(r"^(?![\s#)\]}]|(?:else|elif|except|finally)\b)", re.M)
#: Statement texts keyed and kept (the oldest is dropped first).
_KEPT = 4096


def _compiled(text: str) -> types.CodeType | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a candidate's odd literals are not our warnings
            return compile(text, "<candidate>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def code_key(text: str) -> bytes | None:
    """A digest of ``text``'s byte code without positions (None if it does not compile), compiled whole."""
    return _whole_key(_compiled(text))


def _whole_key(code: types.CodeType | None) -> bytes | None:
    if code is None:
        return None
    parts: list[str] = ["whole"]
    _code_parts(code, parts)
    return digest("\0".join(parts))


def _code_parts(code: types.CodeType, parts: list[str]) -> None:
    """What a code object does, its nested code objects included, without line or column numbers."""
    parts += [
        code.co_code.hex(),
        repr(
            (
                code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount, code.co_flags,
                code.co_name, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars,
                getattr(code, "co_qualname", ""), getattr(code, "co_exceptiontable", b""),
            )
        ),
    ]
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            parts.append("code")
            _code_parts(constant, parts)
        else:
            parts.append(_constant(constant))


def _constant(value: object) -> str:
    """A constant's spelling, with its type (``1`` and ``1.0`` and ``True`` differ)."""
    if isinstance(value, frozenset):
        return "frozenset" + repr(sorted(_constant(v) for v in value))
    if isinstance(value, tuple):
        return "tuple(" + ",".join(_constant(v) for v in value) + ")"
    return type(value).__name__ + ":" + repr(value)


class CodeKey:
    """:func:`code_key` statement by statement, each statement's key computed once per reduction.

    With ``compile`` (the exec oracle's, which keeps the code for the
    candidate's test), a text shorter than ``whole_below`` is keyed by the
    code its test will run: the oracle compiles it once, for both.

    Equal keys mean equal byte code, as with :func:`code_key`; the keys of a
    text split and of a text compiled whole never meet (each says which it is).
    """

    def __init__(self, compile: Callable[[str], types.CodeType | None] | None = None, whole_below: int = PRECOMPILE_LIMIT) -> None:
        self._compile = compile
        self._whole_below = whole_below
        self.compile_seconds = 0.0
        """Seconds in ``compile``: the oracle's own compile, whose code a test of the candidate runs."""
        self._statements: dict[bytes, bytes | None] = {}
        self.compiled = 0
        """Statements compiled so far (the cache's misses), for benchmarks."""
        self._nothing = self._statement_key("")

    def __call__(self, text: str) -> bytes | None:
        if self._compile is not None and len(text) < self._whole_below:
            # the oracle compiles a text this short for its test anyway: the key reads that code
            started = time.monotonic()
            code = self._compile(text)
            self.compile_seconds += time.monotonic() - started
            return _whole_key(code)
        if "__future__" in text:
            return code_key(text)
        starts = [m.start() for m in _STATEMENT_START.finditer(text)]
        first = 0
        if not starts or starts[0] != 0:  # comments and blank lines before the first statement, or an error
            if self._statement_key(text[: starts[0] if starts else len(text)]) != self._nothing:
                return code_key(text)
            first = 1
            starts.insert(0, 0)
        ends = [*starts[1:], len(text)]
        keys: list[bytes] = []
        opening = first
        while first < len(starts):
            # a piece that does not compile ends inside a statement (a docstring's lines, a decorator):
            # it takes the next piece, then the next two, four... until it compiles or the text ends
            width = 1
            while True:
                last = min(len(starts), first + width) - 1
                piece = text[starts[first] : ends[last]]
                # only the module's first statement may be its docstring: "pass" before the others says so
                key = self._statement_key(piece if first == opening else "pass\n" + piece)
                if key is not None:
                    break
                if last == len(starts) - 1:
                    return None  # what comes before ends a statement, so the text does not compile either
                width *= 2
            keys.append(key)
            first = last + 1
        return hashlib.blake2b(b"split\0" + b"".join(keys), digest_size=20).digest()

    def _statement_key(self, statement: str) -> bytes | None:
        seen = digest(statement)
        if seen in self._statements:
            return self._statements[seen]
        code = _compiled(statement)
        key = None
        if code is not None:
            parts: list[str] = []
            _code_parts(code, parts)
            key = digest("\0".join(parts))
        self.compiled += 1
        if len(self._statements) >= _KEPT:
            del self._statements[next(iter(self._statements))]
        self._statements[seen] = key
        return key
