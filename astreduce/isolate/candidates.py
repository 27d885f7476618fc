"""Candidates of ``astreduce isolate`` through the shared scheduler: trees as the session's texts.

dd asks for the outcomes of configurations (changes chosen at one level);
:class:`CandidateTrees` builds each one's tree and hands it to one
:class:`~astreduce.search.session.Session`, as ``reduce`` hands it its
candidates, so isolate gets the same cache, counters, ``-j`` speculation in
the search's own order and stop requests. :class:`Bounds` shadows dd's
passing and failing configurations, so that a stopped search leaves both.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass

from astreduce.files import FileTree
from astreduce.isolate.changes import Change
from astreduce.oracles import Oracle
from astreduce.oracles.tree import EncodedTree, FileOracle, encode_tree
from astreduce.outcome import Outcome
from astreduce.search.session import Session


#: How a search turns a configuration (changes chosen at one level) into a candidate tree.
Build = Callable[[Sequence[Change]], FileTree]


@dataclass
class Bounds:
    """The largest passing and the smallest failing configuration tested so far, one inside the other.

    dd keeps such a pair and narrows it; this is its shadow, fed with every
    outcome the search reads, so that a search stopped between two tests
    leaves a passing and a failing version behind. Both were tested, so both
    are valid, though they may differ from dd's own pair.
    """

    passing: list[Change]
    failing: list[Change]
    grows: bool = True
    """Whether PASS outcomes move the passing side (dd ``+-``); ddmin's search has a failing side only."""

    def saw(self, config: Sequence[Change], outcome: Outcome) -> None:
        chosen = {id(c) for c in config}
        if not {id(c) for c in self.passing} <= chosen <= {id(c) for c in self.failing}:
            return
        if outcome is Outcome.PASS and self.grows and len(chosen) > len(self.passing):
            self.passing = list(config)
        elif outcome is Outcome.FAIL and len(chosen) < len(self.failing):
            self.failing = list(config)


class CandidateTrees:
    """Candidate trees judged through one :class:`~astreduce.search.session.Session`: ``reduce``'s scheduler.

    The session's candidates are texts: for two files, the file's own text,
    judged by the text oracle that :class:`~astreduce.oracles.tree.FileOracle`
    wraps; for two trees, the tree encoded (:func:`~astreduce.oracles.tree.encode_tree`,
    :class:`~astreduce.oracles.tree.EncodedTree`). So the session's cache by
    content, its counters, its ``-j`` speculation in the search's order and its
    stop request serve isolate as they serve ``reduce``. OLD and NEW were
    judged before the search: their outcomes are known here and cost no test
    (dd asks for both first).
    """

    def __init__(self, oracle: Oracle[FileTree], old: FileTree, new: FileTree, jobs: int, single: str | None) -> None:
        texts: Oracle[str]
        if single is not None and isinstance(oracle, FileOracle) and oracle.name == single:
            name = single
            self.text: Callable[[FileTree], str] = lambda tree: tree[name]
            texts = oracle.oracle
        else:
            self.text = encode_tree
            texts = EncodedTree(oracle)
        self.known = {self.text(new): Outcome.FAIL, self.text(old): Outcome.PASS}
        self.session = Session(self.text(new), texts.judge, start=texts.start, jobs=jobs)
        self.jobs = jobs
        self.unresolved = 0
        """Tests whose outcome was UNRESOLVED (an inconsistent configuration, as dd+ says)."""
        self.hits = 0
        """Outcomes answered without the session: OLD and NEW, and dd's own cache."""

    @property
    def tests(self) -> int:
        return self.session.tests

    @property
    def cache_hits(self) -> int:
        return self.session.cache_hits + self.hits

    def outcome(self, config: Sequence[Change], build: Build, bounds: Bounds) -> Outcome:
        for outcome in self.outcomes([config], build, bounds):
            return outcome
        raise AssertionError("no outcome")  # pragma: no cover

    def outcomes(self, configs: Iterable[Sequence[Change]], build: Build, bounds: Bounds) -> Generator[Outcome, None, None]:
        """Outcomes of the configurations' trees, lazily, in order; each one also goes to ``bounds``."""
        drawn: deque[Sequence[Change]] = deque()

        def trees() -> Iterator[FileTree]:
            for config in configs:
                drawn.append(config)
                yield build(config)

        results = self._outcomes(trees())
        try:
            for outcome in results:
                bounds.saw(drawn.popleft(), outcome)
                yield outcome
        finally:
            results.close()  # dd stopped reading: the session cancels what runs ahead

    def _outcomes(self, trees: Iterable[FileTree]) -> Generator[Outcome, None, None]:
        """Known outcomes here, the others from the session (which may draw ahead), in order."""
        order: deque[Outcome | None] = deque()  # per tree drawn: its known outcome, or None: the session's
        answered: deque[Outcome] = deque()  # the session's outcomes not yet yielded

        def unknown() -> Iterator[str]:
            for tree in trees:
                text = self.text(tree)
                known = self.known.get(text)
                order.append(known)
                if known is None:
                    yield text

        results = self.session.outcomes(unknown())
        tests = self.session.tests
        try:
            while True:
                if not order:
                    answered.extend(itertools.islice(results, 1))  # draws up to the next unknown tree
                    if not order:
                        return
                known = order.popleft()
                if known is not None:
                    self.hits += 1
                    yield known
                    continue
                outcome = answered.popleft() if answered else next(results)
                if self.session.tests > tests and outcome is Outcome.UNRESOLVED:
                    self.unresolved += 1
                tests = self.session.tests
                yield outcome
        finally:
            close = getattr(results, "close", None)
            if close is not None:
                close()
