"""What an isolation found, and how it is told: the result, its figures, the report and the summary in words."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from astreduce.files import FileTree
from astreduce.isolate.changes import Change, changed_lines, flatten, matcher, unified_diff
from astreduce.isolate.coverage import Coverage
from astreduce.source.measure import measure


@dataclass
class LevelStats:
    """Figures of one level of the search: dd over files, over the changes within them, or a minimisation on OLD."""

    name: str
    """``directories``, ``files``, the granularity, ``statements``, ``requires``, ``hunks on OLD`` ..."""
    changes: int
    tests: int
    cache_hits: int
    difference: int
    """Changes found: the difference (``requires``: the changes it needs; on OLD: the patch's changes)."""
    seconds: float
    pruned: int = 0
    """Of :attr:`changes`, those in code neither run executes, set aside in one group tried last."""
    pruned_needed: bool = False
    """That group was part of the result (so it was opened at the next level)."""


@dataclass
class IsolationResult:
    """What :func:`~astreduce.isolate.search.isolate` and :func:`~astreduce.isolate.search.isolate_trees` found.

    Trees map relative paths to texts; for a single file the tree has one
    entry and ``*_text`` give its text.
    """

    granularity: str
    old: FileTree
    new: FileTree
    changes: list[Change]
    """Every change of the granularity's level (within files; for trees, after the file levels)."""
    passing_changes: list[Change]
    """Changes applied to OLD in the passing version: the largest tested to pass within the failing one."""
    difference: list[Change]
    """The failure-inducing difference: failing = passing + difference (1-minimal only when the search tested
    each of its changes taken back; binary reduction does not always)."""
    requires: list[Change]
    """The failing version's other changes (the passing version's): what the difference needs on OLD."""
    passing: FileTree
    failing: FileTree
    isolated: FileTree
    """OLD with the isolated patch: fails on its own."""
    tests: int
    cache_hits: int
    unresolved: int
    seconds: float
    oracle_seconds: float
    levels: list[LevelStats]
    single: str | None = None
    """The file's name when OLD and NEW are files."""
    verified: bool = False
    """The passing version was re-run and passes, the failing and isolated ones fail."""
    interrupted: bool = False
    """Stopped before the end: the passing and failing versions so far, both tested; ``requires``
    holds every passing change when the stop came before the search for them."""
    budget_ended: bool = False
    """Stopped by ``--max-tests`` or ``--max-time``: the patch is the best verified so far (exit 0)."""
    isolated_changes: list[Change] = field(default_factory=list)
    """The changes of the patch on OLD (:attr:`isolated_diff`)."""
    coarse: FileTree = field(default_factory=dict)
    """OLD with the difference and what it requires, before they were split: the patch without refinement."""
    refined: bool = False
    """The patch on OLD was split down to single lines and is 1-minimal by them (not when stopped before)."""
    syntax_rejections: int = 0
    """Candidates UNRESOLVED without a test because a Python file did not parse."""
    resumed: int = 0
    """Outcomes answered by the persistent cache of an earlier run (``--resume``) instead of a test."""
    coverage: Coverage = field(default_factory=Coverage)
    """The lines OLD's and NEW's runs executed (unknown when not measured)."""
    reexpressed: str = ""
    """When the patch was re-expressed as OLD's own lines edited in place: what that edit was."""
    target: str = ""
    """What the oracle calls failing, as NEW fails (its exception, the node's failure, the script's verdict)."""
    notes: list[str] = field(default_factory=list)
    """What the user should know of how the tests ran (the oracle's notes)."""
    patch_name: str | None = None
    """For two files: the name the diffs give the file, OLD's, so that ``patch -p1`` in OLD's folder applies them."""

    def _named(self, tree: FileTree) -> FileTree:
        if self.single is None or self.patch_name is None:
            return tree
        return {self.patch_name if path == self.single else path: text for path, text in tree.items()}

    @property
    def diff(self) -> str:
        """The 1-minimal difference as a unified diff: passing → failing."""
        return unified_diff(self._named(self.passing), self._named(self.failing))

    @property
    def isolated_diff(self) -> str:
        """OLD → OLD with the isolated changes: a patch that alone makes OLD fail."""
        return unified_diff(self._named(self.old), self._named(self.isolated))

    @property
    def diff_lines(self) -> int:
        """Lines removed plus lines added by :attr:`diff`."""
        return changed_lines(self.passing, self.failing)

    @property
    def isolated_lines(self) -> int:
        """Lines removed plus lines added by :attr:`isolated_diff`, the patch on OLD."""
        return changed_lines(self.old, self.isolated)

    @property
    def hunks(self) -> int:
        """The hunks of :attr:`isolated_diff` (runs of changed lines, as difflib groups them with three lines of context)."""
        return patch_hunks(self.old, self.isolated)

    @property
    def total_lines(self) -> int:
        """Lines removed plus lines added between OLD and NEW: what the search started from."""
        return changed_lines(self.old, self.new)

    def patch_files(self) -> list[str]:
        """The files the patch on OLD changes, in order."""
        return sorted(p for p in set(self.old) | set(self.isolated) if self.old.get(p) != self.isolated.get(p))

    def _text(self, tree: FileTree) -> str:
        if self.single is None:
            raise ValueError("OLD and NEW are directories: use the trees")
        return tree.get(self.single, "")

    @property
    def passing_text(self) -> str:
        return self._text(self.passing)

    @property
    def failing_text(self) -> str:
        return self._text(self.failing)

    @property
    def isolated_text(self) -> str:
        return self._text(self.isolated)

    def summary(self) -> str:
        """The result in plain words: '3 changed lines in src/core.py make OLD fail; 7,826 of 7,829 changed lines are not needed'."""
        lines, total = self.isolated_lines, self.total_lines
        files = [self._named({p: ""}).popitem()[0] for p in self.patch_files()]
        where = files[0] if len(files) == 1 else f"{len(files)} files ({', '.join(files[:3])}{', ...' if len(files) > 3 else ''})"
        said = f"{lines:,} changed line{'s' if lines != 1 else ''} in {where} make{'s' if lines == 1 else ''} OLD fail"
        if self.target:
            said += f" as NEW does ({self.target})"
        return f"{said}; {total - lines:,} of {total:,} changed lines are not needed"


def patch_hunks(before: Mapping[str, str], after: Mapping[str, str], context: int = 3) -> int:
    """How many hunks the unified diff of two trees has."""
    total = 0
    for path in set(before) | set(after):
        a, b = before.get(path), after.get(path)
        if a == b:
            continue
        total += sum(1 for _ in matcher((a or "").splitlines(True), (b or "").splitlines(True)).get_grouped_opcodes(context))
    return total


def _tree_figures(tree: Mapping[str, str]) -> dict[str, int]:
    sizes = [measure(text) for text in tree.values()]
    return {
        "files": len(tree),
        "bytes": sum(s.bytes for s in sizes),
        "lines": sum(s.lines for s in sizes),
        "tokens": sum(s.tokens for s in sizes),
    }


def isolation_report(result: IsolationResult, old: str, new: str, outputs: Mapping[str, str]) -> dict[str, Any]:
    """The ``--report`` JSON of an isolation; ``"interrupted": true`` only when it was stopped."""
    coverage = result.coverage
    report = {
        "old": old,
        "new": new,
        "target": result.target,
        "granularity": result.granularity,
        "changes": len(flatten(result.changes)),
        "changed_lines": result.total_lines,
        "tests": result.tests,
        "cache_hits": result.cache_hits,
        "resumed": result.resumed,
        "unresolved": result.unresolved,
        "seconds": round(result.seconds, 3),
        "oracle_seconds": round(result.oracle_seconds, 3),
        "levels": [
            {
                "name": s.name, "changes": s.changes, "pruned": s.pruned, "pruned_needed": s.pruned_needed, "tests": s.tests,
                "cache_hits": s.cache_hits, "result": s.difference, "seconds": round(s.seconds, 3),
            }
            for s in result.levels
        ],
        "coverage": {
            "measured": coverage.measured,
            "why_not": coverage.why or None,
            "old_lines": sum(len(v) for v in coverage.old.values()),
            "new_lines": sum(len(v) for v in coverage.new.values()),
            "old_files": len(coverage.old),
            "new_files": len(coverage.new),
        },
        "diff_lines": result.diff_lines,
        "difference": {
            "changes": len(result.difference),
            "lines": result.diff_lines,
            "labels": [c.describe() for c in result.difference],
            "path": outputs.get("difference"),
        },
        "requires": {"changes": len(result.requires), "labels": [c.describe() for c in result.requires]},
        "passing": {**_tree_figures(result.passing), "changes": len(flatten(result.passing_changes)), "path": outputs.get("passing")},
        "failing": {
            **_tree_figures(result.failing), "changes": len(flatten(result.passing_changes)) + len(result.difference), "path": outputs.get("failing"),
        },
        "isolated": {
            **_tree_figures(result.isolated),
            "changes": len(result.isolated_changes),
            "lines": result.isolated_lines,
            "hunks": result.hunks,
            "files": result.patch_files(),
            "path": outputs.get("isolated"),
            "labels": [c.describe() for c in result.isolated_changes],
            "refined": result.refined,
            "reexpressed": result.reexpressed or None,
            "unrefined": {"changes": len(result.difference) + len(result.requires), "lines": changed_lines(result.old, result.coarse)},
        },
        "summary": result.summary(),
        "notes": list(result.notes),
        "syntax_rejections": result.syntax_rejections,
        "old_size": _tree_figures(result.old),
        "new_size": _tree_figures(result.new),
        "verified": result.verified,
        "budget_ended": result.budget_ended,
    }
    if result.interrupted:
        report["interrupted"] = True
    return report
