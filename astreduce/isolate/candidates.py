"""Candidates of ``astreduce isolate`` through the shared scheduler: trees as the session's texts.

dd asks for the outcomes of configurations (changes chosen at one level);
:class:`CandidateTrees` builds each one's tree and hands it to one
:class:`~astreduce.search.session.Session`, as ``reduce`` hands it its
candidates, so isolate gets the same cache, counters, ``-j`` speculation in
the search's own order and stop requests. :class:`Bounds` shadows dd's
passing and failing configurations, so that a stopped search leaves both.
Splitting a patch into single lines makes mostly broken candidates: within
:meth:`CandidateTrees.parsing_only`, one whose Python files do not parse is
UNRESOLVED without a test, as ``reduce``'s token passes do.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from astreduce.files import FileTree
from astreduce.isolate.align import parse_python
from astreduce.isolate.changes import Change
from astreduce.oracles import Oracle
from astreduce.oracles.tree import EncodedTree, encode_tree
from astreduce.outcome import Outcome
from astreduce.search.cache import OutcomeStore
from astreduce.search.session import Budget, Session, StopRequest

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
    """Whether PASS outcomes move the passing side (the granularity's level); ddmin's search has a failing side only."""
    passed: list[list[Change]] = field(default_factory=list)
    """With ``grows``: every configuration seen to pass, for :meth:`settle`."""

    def saw(self, config: Sequence[Change], outcome: Outcome) -> None:
        chosen = {id(c) for c in config}
        if outcome is Outcome.PASS and self.grows:
            self.passed.append(list(config))
        if not {id(c) for c in self.passing} <= chosen <= {id(c) for c in self.failing}:
            return
        if outcome is Outcome.PASS and self.grows and len(chosen) > len(self.passing):
            self.passing = list(config)
        elif outcome is Outcome.FAIL and len(chosen) < len(self.failing):
            self.failing = list(config)

    def settle(self, failing: Sequence[Change]) -> None:
        """``failing`` (a search's result, which fails) becomes the failing side, and the largest configuration
        seen to pass within it the passing side: the two versions stay one inside the other."""
        self.failing = list(failing)
        inside = {id(c) for c in failing}
        within = [config for config in self.passed if {id(c) for c in config} <= inside]
        self.passing = max(within, key=len, default=[])


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

    def __init__(
        self, oracle: Oracle[FileTree], old: FileTree, new: FileTree, jobs: int, single: str | None, *, budget: Budget | None = None,
        stop: StopRequest | None = None, store: OutcomeStore | None = None,
    ) -> None:
        self.old = old
        texts: Oracle[str]
        one_file = oracle.traits.one_file
        if single is not None and one_file is not None and one_file[0] == single:
            name = single
            self.text: Callable[[FileTree], str] = lambda tree: tree[name]
            texts = one_file[1]
        else:
            self.text = encode_tree
            texts = EncodedTree(oracle)
        self.known = {self.text(new): Outcome.FAIL, self.text(old): Outcome.PASS}
        self.session = Session(self.text(new), texts.judge, start=texts.start, jobs=jobs, budget=budget, stop=stop, store=store)
        self.jobs = jobs
        self.unresolved = 0
        """Tests whose outcome was UNRESOLVED (an inconsistent configuration, as dd+ says)."""
        self.hits = 0
        """Outcomes answered without the session: OLD and NEW, and dd's own cache."""
        self.syntax_rejections = 0
        """Candidates UNRESOLVED without a test: a Python file did not parse (:meth:`parsing_only`)."""
        self.python = [
            path for path in sorted(set(old) | set(new))
            if _is_python(path, single) and (path not in old or _parses(old[path])) and (path not in new or _parses(new[path]))
        ]
        """Files that parse in OLD and in NEW, where they are (by the running interpreter): a candidate where one does not is broken."""
        self.require_parse = False
        self.on_outcome: Callable[[], None] | None = None
        """Called after each outcome read (a progress display)."""

    @contextmanager
    def parsing_only(self) -> Iterator[None]:
        """Within this block, a candidate whose Python files do not parse is UNRESOLVED without a test.

        Only files that parse in both versions are checked, so syntax the
        running interpreter does not know (an oracle's ``--python``) is never
        held against a candidate.
        """
        saved, self.require_parse = self.require_parse, True
        try:
            yield
        finally:
            self.require_parse = saved

    def _broken(self, tree: FileTree) -> bool:
        return self.require_parse and any(
            tree.get(path) not in (None, self.old.get(path)) and not _parses(tree[path]) for path in self.python
        )

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

    def probe(
        self, config: Sequence[Change], build: Build, bounds: Bounds, if_fails: Sequence[Change] | None, if_not: Sequence[Change] | None,
    ) -> Outcome:
        """The outcome of one configuration; ``if_fails`` and ``if_not`` are what the search tests next either way,
        which the session may start ahead (``-j``)."""
        tree = build(config)
        text = self.text(tree)
        known = self.known.get(text)
        if known is None and self._broken(tree):
            self.syntax_rejections += 1
            known = self.known[text] = Outcome.UNRESOLVED
        if known is not None:
            self.hits += 1
            outcome = known
        else:

            def then_if_fails(_: int) -> Iterator[str]:
                if if_fails is not None:
                    yield self.text(build(if_fails))

            def then_if_not() -> str | None:
                return self.text(build(if_not)) if if_not is not None else None

            tests = self.session.tests
            results = self.session.outcomes([text], then_if_fails, then_if_not)
            outcome = next(results)
            for _ in results:  # read to its end: the test started ahead for the next call is kept
                pass
            if self.session.tests > tests and outcome is Outcome.UNRESOLVED:
                self.unresolved += 1
        bounds.saw(config, outcome)
        if self.on_outcome is not None:
            self.on_outcome()
        return outcome

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
                if self.on_outcome is not None:
                    self.on_outcome()
                yield outcome
        finally:
            results.close()  # dd stopped reading: the session cancels what runs ahead

    def _outcomes(self, trees: Iterable[FileTree]) -> Generator[Outcome, None, None]:
        """Known outcomes here, the others from the session (which may draw ahead), in order."""
        # per tree drawn: its known outcome (or None: the session's), and whether that is a cache hit
        order: deque[tuple[Outcome | None, bool]] = deque()
        answered: deque[Outcome] = deque()  # the session's outcomes not yet yielded

        def unknown() -> Iterator[str]:
            for tree in trees:
                text = self.text(tree)
                known = self.known.get(text)
                if known is None and self._broken(tree):
                    self.syntax_rejections += 1
                    self.known[text] = Outcome.UNRESOLVED
                    order.append((Outcome.UNRESOLVED, False))
                    continue
                order.append((known, known is not None))
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
                known, hit = order.popleft()
                if known is not None:
                    self.hits += hit
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


def _is_python(path: str, single: str | None) -> bool:
    """A single file is Python whenever it parses; a file of a tree by its name (as the changes are made)."""
    return path == single or path.endswith((".py", ".pyw"))


def _parses(text: str) -> bool:
    return parse_python(text) is not None
