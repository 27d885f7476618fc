"""The state one reduction shares across its passes: current best, cache, counters.

Every candidate goes through :meth:`Session.outcomes`, which hands it to the
:class:`~astreduce.search.scheduler.Scheduler` (the one place tests start,
``-j`` speculation included); the session is the scheduler's
:class:`~astreduce.search.scheduler.Ledger`. The outcome cache is
keyed by the candidate's text (a digest of it), so equal candidates reached
by different passes are tested once. Whenever a candidate FAILs and is
shorter than the last one saved, the session calls ``on_improve`` — the CLI
writes it to disk at once, so an interruption or a crash leaves a
reproducing result behind (never lose work: docs/results.md). At the end of each
pass the strategy hands the pass's result to :meth:`Session.accept`, which
measures it and makes it the current best when it is smaller.
"""

from __future__ import annotations

import ast
import re
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property, partial

from astreduce.errors import UsageError
from astreduce.source.measure import Measure, Size
from astreduce.oracles import Pending, Prepared, Verdict
from astreduce.outcome import Outcome, first_fail
from astreduce.search.cache import OutcomeStore
from astreduce.keys import digest
from astreduce.search.scheduler import IfFails, IfNone, Interrupted, Processes, Scheduler

__all__ = ["Budget", "Interrupted", "PassStats", "ProgressEvent", "SearchFigures", "Session", "StopRequest"]


def _parse(text: str) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a candidate's odd literals are not our warnings
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _parses_here(text: str) -> bool:
    """Whether this interpreter parses ``text``."""
    return _parse(text) is not None


@dataclass
class PassStats:
    """Figures of one pass (one sweep of one transform or strategy step)."""

    name: str
    tests: int = 0
    seconds: float = 0.0
    tokens_before: int = 0
    tokens_after: int = 0


#: The counters a :class:`Session` keeps that a reduction of many sessions (a tree's, one per file visit) adds up.
COUNTERS = ("tests", "cache_hits", "oracle_seconds", "speculative", "syntax_rejections", "unbound_rejections", "failing_tests", "unresolved_tests")


@dataclass(kw_only=True)
class SearchFigures:
    """The figures every reduction reports, of a file or of a tree (the result's own fields come first)."""

    strategy: str
    tests: int
    cache_hits: int
    seconds: float
    oracle_seconds: float
    verified: bool
    passes: list[PassStats]
    history: list[tuple[int, int]]
    """(tests so far, tokens of the best) after each improvement: the size-over-tests curve."""
    formatted: bool = False
    interrupted: bool = False
    notes: list[str] = field(default_factory=list)
    speculative: int = 0
    """Candidates started ahead (``-j``) and cancelled because an earlier one decided."""
    syntax_rejections: int = 0
    """Token-pass candidates answered UNRESOLVED without a test because they do not parse."""
    unbound_rejections: int = 0
    """Candidates answered UNRESOLVED without a test because they unbind a name a line the run executed reads
    (a tree's reduction with coverage, :mod:`astreduce.source.unbound`)."""
    failing_tests: int = 0
    """Tests whose candidate FAILed as the original does (interesting), of :attr:`tests`."""
    unresolved_tests: int = 0
    """Tests whose candidate ended otherwise than the original and than a pass (UNRESOLVED: it broke the
    program, its import, its test's collection, or failed another way), of :attr:`tests`."""
    budget_ended: bool = False
    """The search stopped because ``--max-tests`` or ``--max-time`` was spent (the result is still verified)."""
    target: str = ""
    """What made a candidate interesting: the exception, the crash, the node's failure (as the oracle says it)."""


@dataclass(frozen=True)
class ProgressEvent:
    """What a progress display needs after each test.

    The best size is measured only when a display reads it (at most a few
    times a second): measuring tokens after every test would cost more than
    the test on a large input. It counts the smallest candidate that FAILed,
    even mid-pass, so that it moves under ``--strategy lines`` too, whose one
    pass accepts its result only at the end.
    """

    pass_name: str
    tests: int
    cache_hits: int
    sizer: Callable[[], Size] = field(repr=False)
    original: Size
    files: tuple[int, int] | None = None
    """A tree's reduction: (files left, files in the input)."""

    @cached_property
    def best(self) -> Size:
        return self.sizer()


#: Candidates a session keeps prepared (one per test started ahead is enough).
_PREPARED_KEPT = 16

#: The comment that protects a line from every edit.
KEEP_MARK = "astreduce: keep"


def protected_lines(text: str, keep: str | None = None) -> tuple[str, ...]:
    """The lines of ``text`` no candidate may delete or rewrite: those with a ``# astreduce: keep`` comment,
    and those ``keep`` (a regular expression, ``--keep``) finds."""
    pattern = re.compile(keep) if keep else None
    return tuple(
        line for line in text.splitlines()
        if KEEP_MARK in line and "#" in line.split(KEEP_MARK)[0] or (pattern is not None and pattern.search(line))
    )


def keeps_lines(text: str, lines: tuple[str, ...]) -> bool:
    """Whether ``text`` still holds every one of ``lines``, whole and in order."""
    rest = text.splitlines()
    position = 0
    for line in lines:
        try:
            position = rest.index(line, position) + 1
        except ValueError:
            return False
    return True


class StopRequest:
    """A request to stop a reduction at its next safe point, between two tests: a public object that every
    session of the reduction holds and asks before each test.

    A signal handler that raises ``KeyboardInterrupt`` stops the reducer
    wherever it happens to be — in the middle of an oracle's bookkeeping
    (reaping a child, removing its folder), which then fails on the way out.
    A request instead lets the current test end; the session raises
    ``Interrupted`` before the next one, and the result so far is verified
    and returned as usual (``ReductionStopped``). A request made while no
    search runs is refused (:meth:`request`): the caller interrupts at once.
    """

    def __init__(self) -> None:
        self.requested = False
        self._searches = 0

    @property
    def searching(self) -> bool:
        """True while a search runs (a stop request can still be honoured)."""
        return self._searches > 0

    @contextmanager
    def search(self) -> Iterator[None]:
        """The span of a search: a request made within it is honoured at the next test."""
        self._searches += 1
        try:
            yield
        finally:
            self._searches -= 1

    def request(self) -> bool:
        """Ask the running search to stop.

        Returns:
            False when no search is running, or a stop was already asked for:
            then the caller should interrupt at once (``KeyboardInterrupt``).
        """
        if not self.searching or self.requested:
            return False
        self.requested = True
        return True


class Budget:
    """How many tests and seconds a reduction may spend; once spent, its sessions stop between two tests.

    The sessions of one reduction (a tree's, file by file) share one budget.
    The search then ends as after a stop request, and the best so far is
    verified, formatted and returned as a finished result (exit 0), with
    :attr:`SearchFigures.budget_ended` set.
    """

    def __init__(self, max_tests: int | None = None, max_seconds: float | None = None) -> None:
        self.max_tests = max_tests
        self.deadline = time.monotonic() + max_seconds if max_seconds is not None else None
        self.tests = 0

    def count(self) -> None:
        """One more test was run."""
        self.tests += 1

    @property
    def spent(self) -> bool:
        return (self.max_tests is not None and self.tests >= self.max_tests) or (
            self.deadline is not None and time.monotonic() >= self.deadline
        )

    @staticmethod
    def check(max_tests: int | None, max_seconds: float | None) -> None:
        """Raise UsageError for a ``--max-tests`` below 1 or a ``--max-time`` that is not positive."""
        if max_tests is not None and max_tests < 1:
            raise UsageError("--max-tests must be at least 1")
        if max_seconds is not None and not max_seconds > 0:
            raise UsageError(f"--max-time must be a positive number of seconds, not {max_seconds:g}")

    @classmethod
    def of(cls, max_tests: int | None, max_seconds: float | None) -> Budget | None:
        """The budget of these limits (its clock starts now), or None when neither is set."""
        return None if max_tests is None and max_seconds is None else cls(max_tests, max_seconds)


@dataclass
class Learnt:
    """Outcomes a session learnt, for a later session on the same oracle to start from: a tree's file
    visited again while the rest of the tree is as it was (its candidates then run as they ran)."""

    outcomes: dict[bytes, Outcome] = field(default_factory=dict)
    alike: dict[bytes, Outcome] = field(default_factory=dict)
    """Outcomes by :attr:`Session.alike` key."""


@dataclass
class Session:
    """A reduction in progress."""

    text: str
    judge: Callable[[str], Verdict]
    on_improve: Callable[[str], None] | None = None
    on_progress: Callable[[ProgressEvent], None] | None = None
    start: Callable[[str], Pending] | None = None
    """Starts a candidate without waiting (the oracle's ``start``, the scheduler's backend): enables ``jobs`` > 1."""
    jobs: int = 1
    tests: int = 0
    cache_hits: int = 0
    waited: float = 0.0
    """Seconds spent waiting for the oracle before the session began (the original's runs): counted in
    :attr:`oracle_seconds`."""
    passes: list[PassStats] = field(default_factory=list)
    history: list[tuple[int, int]] = field(default_factory=list)
    """(tests so far, tokens of the best) after each improvement: the size-over-tests curve."""
    stop: StopRequest | None = None
    """The reduction's stop request: asked before every test."""
    budget: Budget | None = None
    """Tests and seconds the whole reduction may spend (``--max-tests``, ``--max-time``), shared by its sessions."""
    protected: tuple[str, ...] = ()
    """Lines of the original every candidate keeps, as they are and in order (``# astreduce: keep``, ``--keep``)."""
    protected_rejections: int = 0
    """Candidates answered UNRESOLVED without a test because they deleted or rewrote a protected line."""
    store: OutcomeStore | None = None
    """The persistent cache (``--resume``): consulted on a miss, fed with every test."""
    resumed: int = 0
    """Outcomes read in the search's order that :attr:`store` answered: tests an earlier run made (not cache hits)."""
    syntax_rejections: int = 0
    """Candidates answered UNRESOLVED without a test because they do not parse."""
    breaks_run: Callable[[str, str], bool] | None = None
    """(the best, a candidate) → whether the candidate surely breaks the run before its failure (it unbinds a
    name the run reads): then it is UNRESOLVED without a test, counted in :attr:`unbound_rejections`."""
    unbound_rejections: int = 0
    failing_tests: int = 0
    """Tests read whose candidate FAILed (of :attr:`tests`)."""
    unresolved_tests: int = 0
    """Tests read whose candidate was UNRESOLVED (of :attr:`tests`)."""
    _parse_check: Callable[[str], object] | None = field(default=None, init=False, repr=False)
    """Within :meth:`parsing_candidates_only`, the check a candidate must pass before it is tested (None with
    :attr:`prepare`: the oracle's own compile)."""
    _checking: bool = field(default=False, init=False, repr=False)
    """Within :meth:`parsing_candidates_only`."""
    prepare: Callable[[str, bool, bool], Prepared | None] | None = None
    """The oracle's :meth:`~astreduce.oracles.Preparing.prepare`, when it has one (its traits say so): its
    compile is the check of :meth:`parsing_candidates_only`, and its key tells candidates alike."""
    on_test: Callable[[int, Verdict], None] | None = None
    """Hears each test counted, with its number (``--verbose``): a test started ahead and not needed (``-j``),
    or past the budget, is never counted, so never numbered."""
    alike: bool = False
    """Give a candidate alike one already tested (:attr:`prepare`'s key) that one's outcome, untested (the
    syntax-tree strategies: layout is moot to a program run; not the literature's ddmin over units)."""
    learnt: Learnt | None = None
    """What an earlier session on the same oracle learnt: this one's cache starts from it, and adds to it."""

    def __post_init__(self) -> None:
        self.best = self.text
        self._measure = Measure()
        """Sizes at the cost of the change: most candidates differ from the best in one statement."""
        self.best_size = self._measure(self.text)
        self.original_size = self.best_size
        # the original FAILs (the caller checked it): keyed as the scheduler keys every candidate
        learnt = self.learnt if self.learnt is not None else Learnt()
        self._cache: dict[bytes, Outcome] = learnt.outcomes
        self._cache[digest(self.text)] = Outcome.FAIL
        self._stored: set[bytes] = set()
        """Keys :attr:`store` answered and the search has not read yet (then they count in :attr:`resumed`)."""
        self._pass_name = "start"
        self._kinds: dict[bytes, bytes] = {}
        """:attr:`alike` keys of candidates asked about and not yet tested."""
        self._by_kind: dict[bytes, Outcome] = learnt.alike
        """Outcomes by :attr:`alike` key (the original's included)."""
        self._runs_on: set[bytes] = set()
        """The last candidates :attr:`breaks_run` let through, by key."""
        self._prepared: dict[bytes, Prepared] = {}
        """The last candidates prepared, by key: the scheduler asks about a candidate more than once."""
        if self.alike and self.prepare is not None:
            original = self.prepare(self.text, False, True)
            if original is not None and original.alike is not None:
                self._by_kind[original.alike] = Outcome.FAIL
        self.history.append((0, self.best_size.tokens))
        self._saved = self.text
        self._measured: tuple[str, Size] | None = None
        self._oracle_seconds = self.waited
        backend = Processes(self.start) if self.start is not None else None
        self.scheduler = Scheduler(self.judge, backend, self.jobs)

    @property
    def oracle_seconds(self) -> float:
        """Seconds spent waiting for the oracle: the tests (as the scheduler times them), the compiles that are
        the tests' first step, and what the session was given as :attr:`waited`."""
        return self._oracle_seconds

    @property
    def speculative(self) -> int:
        """Candidates started ahead and cancelled because an earlier one decided."""
        return self.scheduler.speculative

    # --- testing ----------------------------------------------------------

    def outcome(self, text: str) -> Outcome:
        for result in self.outcomes([text]):
            return result
        raise AssertionError("no outcome")  # pragma: no cover

    def outcomes(self, texts: Iterable[str], if_fails: IfFails | None = None, if_none: IfNone | None = None) -> Iterator[Outcome]:
        """Outcomes of candidate texts, lazily, in order, from the scheduler (the hints ``if_fails``
        and ``if_none``: see :meth:`Scheduler.outcomes <astreduce.search.scheduler.Scheduler.outcomes>`)."""
        return self.scheduler.outcomes(self, texts, if_fails, if_none)

    def close(self) -> None:
        """Cancel every candidate still running ahead (the end of a reduction)."""
        self.scheduler.close()

    @contextmanager
    def parsing_candidates_only(self, check: Callable[[str], bool] | None = None) -> Iterator[None]:
        """Within this block, candidates that do not parse are UNRESOLVED without a test.

        Token-level passes produce mostly broken syntax; checking it here costs
        a parse instead of an oracle run. Passes over syntax trees do not need it.
        The check is ``check`` when given (another interpreter's parser), else
        under an exec oracle the oracle's own compile (:attr:`compiles`), whose
        code the test then runs: a candidate that compiles is compiled once,
        not parsed here and compiled again, and the time counts as the
        oracle's; else this interpreter's parser.
        """
        saved = self._parse_check, self._checking
        self._parse_check = check or (None if self.prepare is not None else _parses_here)
        self._checking = True
        try:
            yield
        finally:
            self._parse_check, self._checking = saved

    # --- the ledger: what the scheduler asks and tells (see scheduler.Ledger) ---

    def peek(self, key: bytes) -> Outcome | None:
        """The outcome of ``key`` cached in memory (the scheduler's odds ask often: no store)."""
        return self._cache.get(key)

    def lookup(self, key: bytes) -> Outcome | None:
        """The cached outcome of ``key``, from memory or else the persistent store."""
        cached = self._cache.get(key)
        if cached is None and self.store is not None:
            cached = self.store.get(key)
            if cached is not None:
                self._cache[key] = cached
                self._stored.add(key)
        return cached

    def admit(self, key: bytes, text: str) -> str | None:
        """``text`` as its test takes it (:class:`~astreduce.oracles.Prepared` by the oracle), or None when it is
        UNRESOLVED without a test: it deletes a protected line, it breaks the run (:attr:`breaks_run`), or it does not parse (within
        :meth:`parsing_candidates_only`) or compile; cached and counted if so.

        Asked first of every candidate the cache does not know, so it is also
        where a candidate :attr:`alike` one already tested gets that outcome
        (read as a cache hit).
        """
        if key in self._cache:
            return text
        if self.protected and not keeps_lines(text, self.protected):
            self._cache[key] = Outcome.UNRESOLVED  # it deletes or rewrites a protected line: never tested
            self.protected_rejections += 1
            return None
        if self.breaks_run is not None and key not in self._runs_on:
            if self.breaks_run(self.best, text):
                self._cache[key] = Outcome.UNRESOLVED
                self.unbound_rejections += 1
                return None
            if len(self._runs_on) >= _PREPARED_KEPT:
                self._runs_on.clear()
            self._runs_on.add(key)  # the scheduler asks about a candidate more than once
        if self._parse_check is not None and not self._parse_check(text):
            self._reject_syntax(key)
            return None
        whole = self._checking and self._parse_check is None
        kind = self._kinds.get(key) if self.alike else None
        keying = self.alike and kind is None
        candidate = text
        if self.prepare is not None and (whole or keying):
            prepared = self._prepared.get(key)
            if prepared is None or (whole and prepared.code is None) or (keying and prepared.alike is None):
                prepared = self.prepare(text, whole, keying)
                if prepared is None:  # it does not compile: its test would end in a SyntaxError, not the target
                    self._reject_syntax(key)
                    return None
                self._oracle_seconds += prepared.seconds  # the oracle's compile, the first step of its test
                if len(self._prepared) >= _PREPARED_KEPT:
                    del self._prepared[next(iter(self._prepared))]
                self._prepared[key] = prepared
            candidate = prepared
            if keying:
                kind = prepared.alike
        if kind is not None:
            if kind in self._by_kind:
                self._cache[key] = self._by_kind[kind]
            else:
                self._kinds[key] = kind
        return candidate

    def _reject_syntax(self, key: bytes) -> None:
        self._cache[key] = Outcome.UNRESOLVED
        self.syntax_rejections += 1

    def hit(self, key: bytes) -> Outcome:
        """A cached outcome read in the search's order: one more cache hit (or, the first time an outcome
        :attr:`store` answered is read, one more test an earlier run made)."""
        if key in self._stored:
            self._stored.discard(key)
            self.resumed += 1
        else:
            self.cache_hits += 1
        return self._cache[key]

    def record(self, key: bytes, text: str, outcome: Outcome, seconds: float, verdict: Verdict | None = None) -> Outcome:
        """A test's outcome read in the search's order, and the ``seconds`` the scheduler waited for it: counted,
        cached, saved if shorter, shown.

        A test of a candidate :attr:`alike` one read before it (both started at
        once, ``-j``) counts as a cache hit with the earlier outcome, as at ``-j 1``.
        """
        self._oracle_seconds += seconds
        kind = self._kinds.pop(key, None)
        if kind is not None and kind in self._by_kind:
            self._cache[key] = self._by_kind[kind]
            return self.hit(key)
        if kind is not None:
            self._by_kind[kind] = outcome
        self.tests += 1
        self.failing_tests += outcome is Outcome.FAIL
        self.unresolved_tests += outcome is Outcome.UNRESOLVED
        if self.budget is not None:
            self.budget.count()
        if self.on_test is not None and verdict is not None:
            self.on_test(self.tests, verdict)
        self._cache[key] = outcome
        if self.store is not None:
            self.store.put(key, outcome)
        if outcome is Outcome.FAIL and len(text) < len(self._saved):
            # measuring tokens costs more than a test on large inputs, so mid-pass
            # the shorter text is saved for safety; accept() decides what is best
            self._saved = text
            if self.on_improve is not None:
                self.on_improve(text)
        if self.on_progress is not None:
            self.on_progress(
                ProgressEvent(
                    self._pass_name, self.tests, self.cache_hits, partial(self._smallest, None if self._saved is self.best else self._saved, self.best_size),
                    self.original_size,
                )
            )
        return outcome

    # --- the best -----------------------------------------------------------

    def _smallest(self, saved: str | None, accepted: Size) -> Size:
        """The size of ``saved`` (the shortest FAIL seen, if not the best) when it beats ``accepted``; measured once per text."""
        if saved is None:
            return accepted
        if self._measured is None or self._measured[0] is not saved:
            self._measured = (saved, self._measure(saved))
        size = self._measured[1]
        return size if size.key < accepted.key else accepted

    def accept(self, text: str) -> bool:
        """Make ``text`` (a candidate known to FAIL) the best if it is smaller; True if it was."""
        if text == self.best:
            return False
        size = self._measure(text)
        if size.key >= self.best_size.key:
            return False
        self.best = text
        self.best_size = size
        self.history.append((self.tests, size.tokens))
        if text != self._saved:
            self._saved = text
            if self.on_improve is not None:
                self.on_improve(text)
        return True

    def first_failing(self, texts: Iterable[str], if_fails: IfFails | None = None, if_none: IfNone | None = None) -> int | None:
        """Index of the first candidate that FAILs, testing lazily in order (the hints: see :meth:`outcomes`)."""
        return first_fail(self.outcomes(texts, if_fails, if_none))

    # --- passes -----------------------------------------------------------

    def stopping(self) -> bool:
        """Whether the search should stop before its next test: a stop request, or the budget spent."""
        return (self.stop is not None and self.stop.requested) or (self.budget is not None and self.budget.spent)

    @property
    def pass_name(self) -> str:
        """The name of the pass running (``start`` before the first)."""
        return self._pass_name

    def begin_pass(self, name: str) -> PassStats:
        self._pass_name = name
        stats = PassStats(name, tests=self.tests, seconds=time.monotonic(), tokens_before=self.best_size.tokens)
        return stats

    def end_pass(self, stats: PassStats) -> None:
        stats.tests = self.tests - stats.tests
        stats.seconds = time.monotonic() - stats.seconds
        stats.tokens_after = self.best_size.tokens
        self.passes.append(stats)


