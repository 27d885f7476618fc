"""What a tree's full rounds remember of each file between two visits.

A tree's full rounds give every file one round of ``auto`` per visit and
come back to it in the next round of the tree, until its rounds reach their
fixpoint (:attr:`~astreduce.search.strategies.StrategyRun.settled`); then the
file waits until its context changes (its text, the files it imports, the
files importing it). Between visits each file keeps its run of ``auto``
(stale edits, sleeping passes, where its rounds are) and the outcomes its
candidates had while the rest of the tree was as it is.
"""

from __future__ import annotations

from collections.abc import Mapping

from astreduce.keys import digest
from astreduce.oracles.tree import encode_tree
from astreduce.search.greedy import name_counts
from astreduce.search.session import Learnt
from astreduce.search.strategies import Plan, StrategyRun
from astreduce.source.imports import ImportGraph


def tree_digest(tree: Mapping[str, str]) -> bytes:
    """A digest of a tree (of its encoding): what a file's outcomes or fixpoint hold for."""
    return digest(encode_tree(tree))


def related(tree: Mapping[str, str], path: str) -> list[str]:
    """The files ``path`` imports and the files importing it: what it can use and what of it is used."""
    graph = ImportGraph.of(tree)
    return sorted(graph.imported_by(path) | graph.importers(path))


class FileRounds:
    """Each file's run of ``auto``, the context of its last fixpoint and its outcomes, between visits."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self._runs: dict[str, StrategyRun] = {}
        self._fixpoints: dict[str, bytes] = {}
        """The context (:func:`context`) in which each file's rounds last reached their fixpoint."""
        self._learnt: dict[str, tuple[bytes, Learnt]] = {}
        """Each file's outcomes, with the digest of the rest of the tree they hold for."""
        self._inherited: dict[str, dict[bytes, bytes]] = {}
        """Per file, the single edits that failed alone before its first round (in the sweeps, and in the modules
        merged into it: a change key holds only the lines around the edit, so a merge keeps it)."""

    @staticmethod
    def context(tree: Mapping[str, str], path: str) -> bytes:
        """A digest of what ``path``'s fixpoint depends on: its text, the files it imports, the files importing it."""
        return tree_digest({p: tree[p] for p in [path, *related(tree, path)]})

    def due(self, tree: Mapping[str, str], path: str) -> bool:
        """Whether ``path`` has rounds to resume, or its context changed since its fixpoint."""
        return self._fixpoints.get(path) != self.context(tree, path)

    def run_of(self, tree: Mapping[str, str], path: str) -> StrategyRun:
        """``path``'s run of ``auto``: resumed, or begun again once its context changed (then its first round
        tests every deletion alone again and parks its other stale edits); its names are counted in the
        related files too."""
        run = self._runs.get(path)
        if run is None:  # its first round parks what failed alone before it (tested once, together), as a round does
            run = self._runs[path] = StrategyRun(self.plan)
            run.memory.stale.update(self._inherited.pop(path, {}))
        elif run.settled:  # a reduction begins (else the last one resumes)
            run.again = run.memory.stale != {}
        run.memory.outside = name_counts("\n".join(tree[p] for p in related(tree, path)))
        return run

    def inherit(self, path: str, stale: Mapping[bytes, bytes]) -> None:
        """Single edits of ``path`` that failed alone outside its rounds (a sweep's): its first round parks them."""
        self._inherited.setdefault(path, {}).update(stale)

    def sweep_run(self, path: str, plan: Plan) -> StrategyRun:
        """A run of a sweep's ``plan`` on ``path`` that parks what failed alone in the sweeps before it, as the
        file's first full round does (a sweep of every phase would test each statement alone again)."""
        run = StrategyRun(plan)
        run.memory.stale.update(self._inherited.get(path, {}))
        return run

    def merged(self, module: str, importer: str) -> None:
        """``module`` was merged into ``importer``: what failed alone in it is the importer's to park."""
        moved = self._inherited.pop(module, {})
        run = self._runs.pop(module, None)
        moved.update(run.memory.stale if run is not None else {})
        target = self._runs.get(importer)
        if target is not None:
            target.memory.stale.update(moved)
        else:
            self.inherit(importer, moved)

    def visited(self, tree: Mapping[str, str], path: str) -> None:
        """``path`` was reduced in ``tree``'s round: remember its context if its rounds reached their fixpoint."""
        if path in tree and self.settled(path):
            self._fixpoints[path] = self.context(tree, path)
        else:
            self._fixpoints.pop(path, None)

    def settled(self, path: str) -> bool:
        """Whether ``path``'s rounds of ``auto`` reached their fixpoint (or it has none: not Python, another strategy)."""
        run = self._runs.get(path)
        return run is None or run.settled

    def unsettled(self, tree: Mapping[str, str]) -> bool:
        """Whether a file of ``tree`` has rounds of ``auto`` to resume."""
        return not all(self.settled(p) for p in tree)

    def learnt(self, path: str, elsewhere: bytes) -> Learnt:
        """The outcomes of ``path``'s candidates while the rest of the tree digests to ``elsewhere``."""
        if path not in self._learnt or self._learnt[path][0] != elsewhere:
            self._learnt[path] = (elsewhere, Learnt())
        return self._learnt[path][1]
