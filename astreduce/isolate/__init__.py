"""Isolating failure-inducing changes: ``astreduce isolate OLD NEW``.

"Yesterday my program worked; today it does not" (Zeller, ESEC/FSE 1999).
Given a passing OLD and a failing NEW version of a file, of a package
directory, or two revisions of a repository (``--git``), this package finds
a patch on OLD that fails as NEW does, 1-minimal by lines and applicable
with ``patch -p1``, and the size of the cause: not the block NEW rewrote
around it.

The changes (:mod:`~astreduce.isolate.changes`, :mod:`~astreduce.isolate.align`),
by granularity (``--granularity``):

``lines``
    difflib line hunks: every maximal run of changed lines is one change.
``statements``
    syntax-aware: the statement trees of both versions are aligned block by
    block (a def or class matches its namesake, other statements NEW
    rewrote pair with OLD's most alike), recursing into matched compound
    statements; every change is one statement added, removed or replaced,
    or one changed header. Applying every change gives NEW exactly.
``functions``
    the statement changes grouped by their innermost enclosing function or
    class, or else by the run of module-level statements that holds them:
    dd+'s grouping.

The search (:mod:`~astreduce.isolate.search`) goes by directory, file, the
granularity, statement and line, each level applied to OLD alone; the
changes no run executes are set aside (:mod:`~astreduce.isolate.coverage`),
each configuration is closed under the names its changes need
(:mod:`~astreduce.isolate.depends`), and the patch is re-expressed against
OLD (:mod:`~astreduce.isolate.reexpress`) and minimised again. The result
(:mod:`~astreduce.isolate.result`) also holds the granularity's failing
version, the largest passing version tested within it, and their
difference. The inputs and oracles on disk (``--entry``, ``--run``,
``--test``, ``--node``, ``--git``) are read in :mod:`~astreduce.isolate.paths`.
"""

from __future__ import annotations

from astreduce.files import FileTree, read_tree
from astreduce.isolate.align import file_changes, statement_changes
from astreduce.isolate.changes import (
    GRANULARITIES,
    Change,
    Edit,
    Granularity,
    apply_changes,
    apply_edits,
    changed_lines,
    line_changes,
    one_line_changes,
    tree_changes,
    unified_diff,
)
from astreduce.isolate.coverage import Coverage
from astreduce.isolate.paths import IsolateSettings, isolate_paths
from astreduce.isolate.result import IsolationResult, LevelStats, isolation_report
from astreduce.isolate.search import IsolateProgress, isolate, isolate_trees
from astreduce.oracles import Oracle
from astreduce.oracles.tree import DirectoryOracle, FileOracle

#: The oracle of a tree: the one oracle contract over trees (the name kept for callers of the old protocol).
TreeOracleProtocol = Oracle[FileTree]

__all__ = [
    "GRANULARITIES",
    "Change",
    "Coverage",
    "DirectoryOracle",
    "Edit",
    "FileOracle",
    "Granularity",
    "IsolateProgress",
    "IsolateSettings",
    "IsolationResult",
    "LevelStats",
    "TreeOracleProtocol",
    "apply_changes",
    "apply_edits",
    "changed_lines",
    "file_changes",
    "isolate",
    "isolate_paths",
    "isolate_trees",
    "isolation_report",
    "line_changes",
    "one_line_changes",
    "read_tree",
    "statement_changes",
    "tree_changes",
    "unified_diff",
]
