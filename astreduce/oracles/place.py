"""The same place: a candidate is interesting only when its failure happens where the original's did.

The same exception and message is not yet the same bug. A reduction that
deletes the buggy function may well find another line that raises the same
``ZeroDivisionError`` (a helper's own ``1 / 0``), or fold the program down
to ``0 + ""``, a look-alike that says nothing of where the fault was. So
the place of the original's failure is recorded (the innermost frame of its
traceback in the code under reduction, :attr:`~astreduce.oracles.Traits.raised_at`),
and :class:`SamePlace` turns every other FAIL into UNRESOLVED: the
candidate's raising line must *come from* (:mod:`astreduce.source.origins`)
the same function of the same original file. Code may still move: a module
merged into its importer, a call inlined, a block hoisted, names renamed
and constants folded keep the raising line's origin.

A failure raised in an appended test script (``--append``), which no
candidate changes, must come from the same line of it. A failure that no
frame of the program or its script shows (a crash of the interpreter, a
tool's error) has no place, and the check does not apply.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TypeVar

from astreduce.oracles import Converted, Oracle, Pending, Verdict, Wrapper

from astreduce.run import APPENDED
from astreduce.outcome import Outcome
from astreduce.source.origins import Lineage

#: The candidates: a text, or a tree of files.
C = TypeVar("C")

__all__ = ["Place", "SamePlace", "place_of"]


@dataclass(frozen=True)
class Place:
    """Where a failure happened: an original file, a line, and the function that line belongs to."""

    file: str
    line: int
    function: str | None
    """The qualified name (``Parser.parse``); None at module level."""
    pinned: bool = False
    """In a file no candidate changes (an appended script): then the very same line."""

    def describe(self) -> str:
        """``calc.py:12 in evaluate``; ``the --append script, line 3``."""
        if self.pinned:
            return f"the --append script, line {self.line}"
        return f"{self.file}:{self.line}" + (f" in {self.function}" if self.function else " at module level")

    def as_dict(self) -> dict[str, object]:
        return {"file": self.file if not self.pinned else None, "line": self.line, "function": self.function, "appended": self.pinned}


def place_of(raised_at: tuple[str, int] | None, lineage: Lineage, tree: Mapping[str, str]) -> Place | None:
    """The place of a failure raised at ``raised_at`` (a file of ``tree``, made from the lineage's latest
    improvement, and a line), as the original's file, line and function; None when it has none."""
    if raised_at is None:
        return None
    path, line = raised_at
    if path == APPENDED:
        return Place(APPENDED, line, None, pinned=True)
    origin = lineage.origin(tree, path, line)
    if origin is None:
        return None
    return Place(origin.file, origin.line, lineage.function(origin))


class SamePlace(Wrapper[C]):
    """FAIL only when the inner oracle's FAIL happens at the original's place (see the module docstring).

    Args:
        inner: the calibrated oracle.
        place: where the original failed.
        lineage: the origins of the reduction's latest improvement (the job moves it on).
        tree_of: a candidate as a tree of files (a text: a tree of one file, under the input's name).
    """

    def __init__(self, inner: Oracle[C], place: Place, lineage: Lineage, tree_of: Callable[[C], Mapping[str, str]]) -> None:
        super().__init__(inner)
        self.place = place
        self.lineage = lineage
        self.tree_of = tree_of
        self.elsewhere = 0
        """FAILs of the inner oracle turned UNRESOLVED because they happened elsewhere."""

    @property
    def identity(self) -> str:
        where = self.place
        return f"{self.inner.identity}|place={where.file}:{where.function if not where.pinned else where.line}"

    def start(self, candidate: C) -> Pending:
        return Converted(self.inner.start(candidate), lambda verdict: self.placed(candidate, verdict))

    def judge(self, candidate: C) -> Verdict:
        return self.placed(candidate, self.inner.judge(candidate))

    def placed(self, candidate: C, verdict: Verdict) -> Verdict:
        """``verdict``, a FAIL turned UNRESOLVED when it did not happen at the place."""
        if verdict.outcome is not Outcome.FAIL:
            return verdict
        found = place_of(verdict.run.raised_at, self.lineage, self.tree_of(candidate))
        if self._same(found):
            return verdict
        self.elsewhere += 1
        said = found.describe() if found is not None else "a line of no origin"
        return Verdict(Outcome.UNRESOLVED, replace(verdict.run, rejected=f"raised elsewhere: {said}"))

    def _same(self, found: Place | None) -> bool:
        if found is None:
            return False
        if self.place.pinned or found.pinned:
            return found == self.place
        return (found.file, found.function) == (self.place.file, self.place.function)
