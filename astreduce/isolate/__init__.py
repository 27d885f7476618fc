"""Isolating failure-inducing changes: ``astreduce isolate OLD NEW``.

"Yesterday my program worked; today it does not" (Zeller, ESEC/FSE 1999).
Given a passing OLD version and a failing NEW version of a file (or of a
package directory), this module computes the *changes* between them, applies
subsets of them to OLD and runs general delta debugging in mode ``+-``
(:func:`astreduce.dd.dd`) to find

* a maximal set of changes that still passes (the *passing* version),
* a minimal set that still fails (the *failing* version), and
* their 1-minimal *difference*: removing any one of its changes from the
  failing version makes it pass (or become inconsistent).

Granularity (``--granularity``):

``lines``
    difflib line hunks: every maximal run of changed lines is one change.
``statements``
    syntax-aware: the statement trees of both versions are aligned block by
    block (a def or class matches its namesake, another compound statement
    matches one with the same first line, a simple statement matches the same
    text), recursing into matched compound statements; every change is then
    one statement added, removed or replaced, or one changed header (the
    lines of a compound statement outside its blocks: decorators, signature,
    ``else:`` ...). Comment and blank lines travel with the statement below
    them. Applying every change gives NEW exactly.
``functions``
    the statement changes grouped by their innermost enclosing function or
    class, or else by the module-level statement that holds them: dd+'s
    grouping that cut the GDB study from 470 tests to 97.

Inconsistent configurations — a candidate that does not compile, or raises
another exception — are UNRESOLVED (the exec oracle says so by itself); dd
counts them as neither passing nor failing, as dd+ does.

The difference found by ``+-`` is relative to the passing version; applied
to OLD alone it may not fail, when it uses something that another, harmless
change introduces (a new helper function, a new import). The changes it
needs are then found by ddmin among the passing changes (:attr:`IsolationResult.requires`),
so that OLD plus the difference and what it needs fails on its own.

Down to the line (``refine``, the default), as HDD goes from coarse to fine
(Misherghi & Su 2006): that patch on OLD is then split into statements
(after ``functions``) and into single lines — every line it removes or adds
is one change — and minimised at each level, applied to OLD alone, so that
:attr:`IsolationResult.isolated` is OLD plus a patch that is 1-minimal by
lines: taking back any one of its changed lines makes the failure go away.
On ``calendar_weekday_enum`` (corpora/isolate) the patch shrinks from 47
changed lines to 8. ``-o`` writes that patch, what a user applies to find
which change broke it; the 1-minimal difference between the passing and the
failing version goes beside it.

Directories: OLD and NEW may be two versions of a package. Changes are
grouped by file first: a file added, removed or changed is one change, and
dd ``+-`` runs over these; then within the files of that difference (added
and removed files stay whole), at the chosen granularity. Every candidate is
materialised as a copy of the tree in a fresh sandbox folder
(:mod:`astreduce.oracles.sandbox`), which is the working directory of

* ``--entry FILE`` (the exec oracle for trees): ``FILE`` (relative to the
  tree) runs as ``__main__`` under ``--python`` with the tree first on
  ``sys.path``; its exception is matched as the exec oracle does (same type
  and message by default, ``--expect``, ``--match``, ``--same-frame``);
* ``--run CMD``: ``{dir}`` is the tree, ``{file}`` the entry file (or the
  tree when there is no ``--entry``), ``{python}`` the interpreter; classified
  as the command oracle does (``--signal``, ``--exit-code``, ``--stderr``,
  ``--stdout``, ``--hang``, or the same ending as NEW);
* ``--test SCRIPT``: the script gets the tree as its argument, exit 0 = fails;
* ``--differential CMD1 CMD2``.

Not for trees: ``--append``, ``--stdin``, ``--retries``. Files that are not
UTF-8 text, or do not parse, are compared by lines (or whole when binary).
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
