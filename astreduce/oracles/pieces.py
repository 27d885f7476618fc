"""A candidate's module code made of its top-level statements' code, each compiled once per reduction.

Compiling a 2,600-line candidate for its test costs a test of stdlib_argparse
about 2 ms, more than the rest of astreduce's work on it. A module's code is
its top-level statements' code run one after the other in one namespace, and
a statement compiles the same alone (see :mod:`astreduce.source.statements`),
so :class:`ModuleCode` compiles each statement once, keeps its code by its
text, and moves its line numbers to where the statement stands in each
candidate: a candidate that changes one function compiles that function.

What runs is what the whole would run: the same statements, names, file
name and line numbers. The byte code differs in one way only: a method
called on a module imported by another statement is looked up as a method
(``LOAD_METHOD``) where the whole, which sees the import, looks it up as an
attribute; the call and any error are the same. A statement after the first that starts with a string is
compiled after ``pass`` (a no-op), so that it does not become the module's
docstring. A text this cannot cut for sure is compiled whole: one with a
``__future__`` import (it changes how the rest compiles) or with a name
declared ``global`` or ``nonlocal`` at module level, one whose start is not
a statement's, and one with a statement that does not compile (the whole
compile then reports the error).
"""

from __future__ import annotations

import re
import types
import warnings
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar

from astreduce.source.statements import declares_global, incomplete, starts

__all__ = ["ModuleCode", "shift_lines"]

#: Characters of statements kept with their code (and again with their code moved to a line), the least
#: recently used dropped first: a large class changed by one candidate after another is kept once a version.
_KEPT_CHARS = 4 << 20
#: A statement that starts with a string (its prefix, then a quote): alone, it would be a docstring.
_STRING_FIRST = re.compile(r"[rRbBuUfF]{0,2}['\"]")


class ModuleCode:
    """The code objects of a candidate's top-level statements, for its test to run in turn (see the module docstring)."""

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self._compiled: _Kept[str, types.CodeType | None | _Incomplete] = _Kept(len)
        self._moved: _Kept[tuple[str, int], types.CodeType] = _Kept(lambda key: len(key[0]))
        self.compiled = 0
        """Statements compiled so far (the cache's misses), for benchmarks."""

    def codes(self, text: str) -> list[types.CodeType] | None:
        """The code of each top-level statement of ``text``, its lines where they are in ``text``;
        None when ``text`` must be compiled whole."""
        if "__future__" in text or "__annotations__" in text:  # how the rest compiles; made before the first statement
            return None
        cuts = starts(text)
        if cuts and cuts[-1] == len(text):  # the end of the text after its last newline: no statement
            cuts.pop()
        if not cuts:
            return None
        if cuts[0] != 0:  # comments and blank lines before the first statement go with it; anything else is an error
            if any(line.strip() and not line.lstrip().startswith("#") for line in text[: cuts[0]].splitlines()):
                return None
            cuts[0] = 0
        ends = [*cuts[1:], len(text)]
        codes: list[types.CodeType] = []
        index = line = done = 0  # done: where ``line`` was counted to
        while index < len(cuts):
            width = 1
            while True:
                last = min(len(cuts), index + width) - 1
                piece = text[cuts[index] : ends[last]]
                before = "pass\n" if index and _STRING_FIRST.match(piece) else ""
                code = self._compile(before + piece)
                if code is None:
                    return None
                if not isinstance(code, _Incomplete):
                    break
                if last == len(cuts) - 1:
                    return None  # the text ends first: it does not compile whole either
                width *= 2
            line += text.count("\n", done, cuts[index])
            done = cuts[index]
            codes.append(self._moved_to(before + piece, code, line - (1 if before else 0)))
            index = last + 1
        return codes

    def statement(self, piece: str, first: bool) -> types.CodeType | None | bool:
        """The code of one top-level statement (``first``: the text's first, which may be its docstring),
        as :meth:`codes` compiles it for a test and keeps it (its lines from 1): the alike key
        (:class:`~astreduce.search.alike.CodeKey`) reads it, and the test that follows compiles nothing
        more. False when more lines may complete ``piece``; None when it must be compiled whole: an
        error, or a name declared ``global``."""
        unit = "pass\n" + piece if not first and _STRING_FIRST.match(piece) else piece
        code = self._compile(unit)
        return False if isinstance(code, _Incomplete) else code

    def _compile(self, unit: str) -> types.CodeType | None | _Incomplete:
        """``unit`` compiled at line 1 (cached); None if it has an error or must not be compiled alone."""
        if unit in self._compiled:
            return self._compiled.hit(unit)
        code: types.CodeType | None | _Incomplete
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the whole compile in the test's child warns as a plain run does
                code = compile(unit, self.filename, "exec", dont_inherit=True)
            if ("global" in unit or "nonlocal" in unit) and declares_global(unit):
                code = None
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            code = _INCOMPLETE if incomplete(unit) else None
        self.compiled += 1
        self._compiled.keep(unit, code)
        return code

    def _moved_to(self, unit: str, code: types.CodeType, line: int) -> types.CodeType:
        if line == 0:
            return code
        key = (unit, line)
        if key in self._moved:
            return self._moved.hit(key)
        moved = shift_lines(code, line)
        self._moved.keep(key, moved)
        return moved


def shift_lines(code: types.CodeType, offset: int) -> types.CodeType:
    """``code`` with every line number ``offset`` further down (nested functions and classes too)."""
    consts = tuple(shift_lines(c, offset) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_firstlineno=code.co_firstlineno + offset, co_consts=consts)


K = TypeVar("K")
V = TypeVar("V")


class _Kept(OrderedDict[K, V]):
    """A cache that drops its least recently used entries past :data:`_KEPT_CHARS` characters of
    statements (``size``: a key's)."""

    def __init__(self, size: Callable[[K], int]) -> None:
        super().__init__()
        self.size = size
        self.chars = 0

    def hit(self, key: K) -> V:
        """The value of ``key``, which is kept: it becomes the most recent."""
        self.move_to_end(key)
        return self[key]

    def keep(self, key: K, value: V) -> None:
        self[key] = value
        self.chars += self.size(key)
        while self.chars > _KEPT_CHARS and len(self) > 1:
            self.chars -= self.size(self.popitem(last=False)[0])


class _Incomplete:
    """A statement's piece that more lines may complete (it takes the next piece)."""


_INCOMPLETE = _Incomplete()
