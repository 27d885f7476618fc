"""Which lines of a tree a run of the oracle executes: OLD's run and NEW's, measured once.

The change-isolation paper's first item of future work: a change to code
that neither OLD's nor NEW's run executes cannot be why one passes and the
other fails, so such changes go into one group that the search tries last
(:func:`split_executed`). The coverage is measured by running the oracle on
OLD and on NEW once more, with a ``sitecustomize.py`` added at the tree's
root (:data:`~astreduce.run.coverage.TRACER`): every Python process the oracle starts there with the
tree on its path (``PYTHONPATH=.``, or the tree on ``PYTHONPATH`` as a test
script sets it) records the lines it executes in the tree's files, through
``sys.monitoring`` on Python 3.12 and later (each line reported once, then
disabled: the run is barely slower) and ``sys.settrace`` before, and writes
them as JSON to a folder outside the tree when it exits. The tracer is
plain Python 2.7 and 3 (a project's tests may run under either), and it
imports the ``sitecustomize`` it hides, if there is one.

Files that are not Python, and runs that record nothing (an oracle that
runs no Python of the tree, a test script that clears the environment),
leave coverage *unknown*: nothing is set aside then, and the report says so.
"""

from __future__ import annotations

import ast
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from astreduce.files import FileTree
from astreduce.isolate.align import parse_python
from astreduce.isolate.changes import Change, grouped, line_offsets
from astreduce.run.coverage import TRACER_NAME, python_file, read_runs, tracer_text

@dataclass(frozen=True)
class Coverage:
    """The lines (1-based) that OLD's and NEW's runs executed, by file; empty maps and ``measured`` false: unknown.

    :attr:`old` and :attr:`new` leave out the header of every function whose
    body never ran (a change to it changes nothing in the run);
    :attr:`new_ran` keeps them (a header's annotations and defaults are
    evaluated when the module is imported: a name they use must exist).
    """

    old: Mapping[str, frozenset[int]] = field(default_factory=dict)
    new: Mapping[str, frozenset[int]] = field(default_factory=dict)
    measured: bool = False
    why: str = ""
    """When not measured: why not, in a few words."""
    new_ran: Mapping[str, frozenset[int]] = field(default_factory=dict)

    def executed_lines(self) -> int:
        return sum(len(lines) for lines in self.old.values()) + sum(len(lines) for lines in self.new.values())


class ChangeCoverage:
    """Whether a change touches a line one of the two runs executes: its OLD lines in OLD's run, its NEW text in NEW's.

    A file that is not Python counts as executed (coverage cannot tell), and
    so does every change when the coverage is unknown.
    """

    def __init__(self, coverage: Coverage, old: FileTree) -> None:
        self.coverage = coverage
        self.old = old
        self._offsets: dict[str, list[int]] = {}

    def _line_of(self, path: str, offset: int) -> int:
        """The 1-based line of OLD's file holding character ``offset``."""
        offsets = self._offsets.get(path)
        if offsets is None:
            offsets = self._offsets[path] = line_offsets(self.old.get(path, "").splitlines(keepends=True))
        low, high = 0, len(offsets) - 1
        while low < high:  # the last start at or before offset
            middle = (low + high + 1) // 2
            if offsets[middle] <= offset:
                low = middle
            else:
                high = middle - 1
        return low + 1

    def executed(self, change: Change) -> bool:
        """Whether OLD's run executes a line the change removes or NEW's run one it adds."""
        if not self.coverage.measured:
            return True
        return any(any(self._sides(member)) for member in change.members)

    def executed_by_both(self, change: Change) -> bool:
        """Whether OLD's run executes a line the change replaces and NEW's run a line it puts there: code both runs go through."""
        if not self.coverage.measured:
            return True
        return any(all(self._sides(member)) for member in change.members)

    def _sides(self, change: Change) -> tuple[bool, bool]:
        """(OLD's run executes a line it removes or replaces, NEW's run a line of its text)."""
        path = change.path
        if not python_file(path):
            return True, True
        old_lines = self.coverage.old.get(path, frozenset())
        new_lines = self.coverage.new.get(path, frozenset())
        if change.presence is True:
            return False, bool(new_lines)
        if change.presence is False:
            return bool(old_lines), False
        in_old = in_new = False
        for edit in change.edits:
            if old_lines and edit.end > edit.start and not in_old:
                first, last = self._line_of(path, edit.start), self._line_of(path, max(edit.start, edit.end - 1))
                in_old = any(line in old_lines for line in range(first, last + 1))
            if new_lines and edit.text and not in_new:
                if edit.new_line < 0:
                    in_new = True  # where its text stands in NEW is not known: count it
                else:
                    first = edit.new_line + 1
                    in_new = any(line in new_lines for line in range(first, first + edit.text.count("\n") + 1))
        return in_old, in_new


def split_executed(changes: list[Change], covered: ChangeCoverage | None, what: str) -> list[Change]:
    """``changes`` with those no run executes gathered into one group at the end (none: as they are).

    The group is one element of dd: tried last, together, as the paper
    proposed for changes to code that never runs.
    """
    if covered is None or not covered.coverage.measured:
        return list(changes)
    executed = [c for c in changes if covered.executed(c)]
    idle = [c for c in changes if not covered.executed(c)]
    if not idle or not executed:
        return list(changes)
    return [*executed, grouped("", f"{len(idle)} {what} that neither run executes", idle)]


#: How a coverage run is made: the tree (with the tracer at its root) is run by the oracle; the tracer writes to the folder.
CoverageRun = Callable[[FileTree, str], None]


def measure_coverage(run: CoverageRun, old: FileTree, new: FileTree) -> Coverage:
    """Run the oracle on OLD and on NEW once each with the tracer: the lines each run executed.

    ``run(tree, folder)`` runs the oracle on ``tree`` (which holds the tracer)
    in a way that lets the tracer write to ``folder``.
    """
    if TRACER_NAME in old or TRACER_NAME in new:
        return Coverage(why=f"the project has a {TRACER_NAME} of its own")
    found: list[dict[str, frozenset[int]]] = []
    ran: list[dict[str, frozenset[int]]] = []
    for tree in (old, new):
        folder = tempfile.mkdtemp(prefix="astreduce-coverage-")
        try:
            run({**tree, TRACER_NAME: tracer_text(folder)}, folder)
            found.append(read_runs(Path(folder), tree))
            ran.append(found[-1])
            found[-1] = {name: frozenset(_called_only(tree[name], lines)) for name, lines in found[-1].items()}
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    if not found[0] and not found[1]:
        return Coverage(why="no run recorded a line (the oracle runs no Python of the tree, or clears its environment)")
    return Coverage(found[0], found[1], measured=True, new_ran=ran[1])


def _called_only(text: str, lines: frozenset[int]) -> set[int]:
    """``lines`` less the lines of every ``def`` whose body never ran: its header runs when the module (or class)
    is made, but a change to a function nobody calls changes nothing in the run."""
    tree = parse_python(text)
    kept = set(lines)
    if tree is None:
        return kept
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.body and node.end_lineno is not None:
            body = node.body[0].lineno
            if not any(line in lines for line in range(body, node.end_lineno + 1)):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                kept.difference_update(range(first, body))
    return kept


def executed_in(coverage: Coverage, changes: Iterable[Change], old: FileTree) -> int:
    """How many of ``changes`` touch an executed line."""
    covered = ChangeCoverage(coverage, old)
    return sum(1 for change in changes if covered.executed(change))
