"""The state one reduction shares across its passes: current best, cache, counters.

Every candidate goes through :meth:`Session.outcomes`: the outcome cache is
keyed by the candidate's text (a digest of it), so equal candidates reached
by different passes are tested once. Whenever a candidate FAILs and is
shorter than the last one saved, the session calls ``on_improve`` — the CLI
writes it to disk at once, so an interruption or a crash leaves a
reproducing result behind (DESIGN.md, "never lose work"). At the end of each
pass the strategy hands the pass's result to :meth:`Session.accept`, which
measures it and makes it the current best when it is smaller.
"""

from __future__ import annotations

import ast
import hashlib
import itertools
import select
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field

from astreduce.search.cache import OutcomeStore
from astreduce.measure import Size, measure
from astreduce.oracles import Finished, Pending, Verdict
from astreduce.outcome import Outcome


@dataclass
class PassStats:
    """Figures of one pass (one sweep of one transform or strategy step)."""

    name: str
    tests: int = 0
    seconds: float = 0.0
    tokens_before: int = 0
    tokens_after: int = 0


@dataclass(frozen=True)
class ProgressEvent:
    """What a progress display needs after each test."""

    pass_name: str
    tests: int
    cache_hits: int
    best: Size
    original: Size


class Interrupted(Exception):
    """Raised inside a pass when the user asked to stop; the session keeps its best."""


@dataclass
class Session:
    """A reduction in progress."""

    text: str
    judge: Callable[[str], Verdict]
    on_improve: Callable[[str], None] | None = None
    on_progress: Callable[[ProgressEvent], None] | None = None
    start: Callable[[str], Pending] | None = None
    """Starts a candidate without waiting (the oracle's ``start``): enables ``jobs`` > 1."""
    jobs: int = 1
    speculative: int = 0
    """Candidates started ahead and cancelled because an earlier one decided."""
    tests: int = 0
    cache_hits: int = 0
    oracle_seconds: float = 0.0
    passes: list[PassStats] = field(default_factory=list)
    history: list[tuple[int, int]] = field(default_factory=list)
    """(tests so far, tokens of the best) after each improvement: the size-over-tests curve."""
    stop_requested: bool = False
    store: OutcomeStore | None = None
    """The persistent cache (``--resume``): consulted on a miss, fed with every test."""
    syntax_rejections: int = 0
    """Candidates answered UNRESOLVED without a test because they do not parse."""
    require_parse: bool = False
    compiles: Callable[[str], bool] | None = None
    """The exec oracle's compile, when it can check a candidate (see :meth:`parsing_candidates_only`)."""
    stale: set[bytes] = field(default_factory=set)
    """Keys (:func:`~astreduce.search.strategies.change_key`) of single edits that did not FAIL alone."""
    retry_stale: bool = False
    """Test stale single edits one by one again (``--exhaustive``): slower, 1-minimal in every round."""
    lookahead: Callable[[str], str | None] | None = None
    """Set by a strategy during a pass: the next pass's first candidate, should this pass end with the given text."""
    fail_rates: list[float] = field(default_factory=lambda: [0.3, 0.5])
    """Moving averages of how often a test FAILs after one that did not (0) and after one that did (1):
    where speculation pays, on the FAIL or the PASS side. FAILs come in runs (a token pass deletes
    token after token, a rare transform fails to apply time after time), so the last outcome tells
    much: on the corpora this guesses wrong 4% less often than one average."""
    last_failed: bool = False

    def __post_init__(self) -> None:
        self.best = self.text
        self.best_size = measure(self.text)
        self.original_size = self.best_size
        self._cache: dict[bytes, Outcome] = {hashlib.blake2b(self.text.encode("utf-8", "surrogateescape")).digest(): Outcome.FAIL}
        self._pass_name = "start"
        self.history.append((0, self.best_size.tokens))
        self._saved = self.text
        self._began = time.monotonic()
        self._prefetched: dict[bytes, Pending] = {}
        """Candidates started on the FAIL side of the search: what it tests next if the one before FAILs."""

    # --- testing ----------------------------------------------------------

    def outcome(self, text: str) -> Outcome:
        for result in self.outcomes([text]):
            return result
        raise AssertionError("no outcome")  # pragma: no cover

    def outcomes(
        self,
        texts: Iterable[str],
        if_fails: Callable[[int], Iterable[str]] | None = None,
        if_none: Callable[[], str | None] | None = None,
    ) -> Iterator[Outcome]:
        """Outcomes of candidate texts, lazily, in order; cached ones cost no test.

        ``if_fails(i)`` gives the texts the search tests next, in order, if
        the ``i``-th candidate FAILs (read lazily: up to the first that needs
        a test); ``if_none()`` the one it tests next if none does (None: not
        known). A parallel executor may start them early.
        """
        if self.start is None or self.jobs <= 1:
            for text in texts:
                yield self._one(text)
            return
        yield from self._parallel(texts, if_fails, if_none)

    def close(self) -> None:
        """Cancel every candidate still running ahead (the end of a reduction)."""
        for pending in self._prefetched.values():
            pending.cancel()
        self.speculative += len(self._prefetched)
        self._prefetched.clear()

    @contextmanager
    def parsing_candidates_only(self) -> Iterator[None]:
        """Within this block, candidates that do not parse are UNRESOLVED without a test.

        Token-level passes produce mostly broken syntax; checking it here costs
        a parse instead of an oracle run. Passes over syntax trees do not need it.
        Under an exec oracle the check is the oracle's own compile
        (:attr:`compiles`), whose code the test then runs: a candidate that
        compiles is compiled once, not parsed here and compiled again, and the
        time counts as the oracle's.
        """
        saved = self.require_parse
        self.require_parse = True
        try:
            yield
        finally:
            self.require_parse = saved

    def _rejected(self, key: bytes, text: str) -> bool:
        if not self.require_parse or key in self._cache or self._parses(text):
            return False
        self._cache[key] = Outcome.UNRESOLVED
        self.syntax_rejections += 1
        return True

    def _parses(self, text: str) -> bool:
        if self.compiles is not None:
            started = time.monotonic()
            try:
                return self.compiles(text)
            finally:
                self.oracle_seconds += time.monotonic() - started
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a candidate's odd literals are not our warnings
                ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return False
        return True

    def _one(self, text: str) -> Outcome:
        if self.stop_requested:
            raise Interrupted
        key = _digest(text)
        if self._rejected(key, text):
            return Outcome.UNRESOLVED
        cached = self._lookup(key)
        if cached is not None:
            self.cache_hits += 1
            return cached
        started = time.monotonic()
        verdict = self.judge(text)
        self.oracle_seconds += time.monotonic() - started
        return self._record(key, text, verdict.outcome)

    def _parallel(
        self, texts: Iterable[str], if_fails: Callable[[int], Iterable[str]] | None, if_none: Callable[[], str | None] | None
    ) -> Iterator[Outcome]:
        """Keep up to ``jobs`` uncached candidates running ahead; yield outcomes in order.

        The consumer decides on outcomes in order, so the first FAIL in the
        search's own order wins whatever finishes first: results are the same
        for every ``jobs``. A free slot goes to whichever candidate the search
        is likeliest to need (from :attr:`fail_rate` and the outcomes of tests
        that ended but are not read yet): the next one in order, needed if
        none before it FAILs; the one it tests after a candidate of the
        window if that one is the first to FAIL (``if_fails``: the first of
        them that needs a test, for most token deletions do not parse); or,
        once every candidate is drawn, the one it tests after this call if
        nothing FAILs (``if_none``). The last two are kept running into the
        next call, which adopts them if its first candidate that needs a test
        is theirs. When the consumer stops reading, the rest is cancelled at
        once.
        """
        assert self.start is not None
        source = iter(texts)
        window: deque[_Entry] = deque()
        running: dict[bytes, Pending] = {}
        inherited = set(self._prefetched)  # started by the previous call: adopted by this one's first test or never
        drawn = 0  # texts taken from ``source``: the index of the next one
        branches: dict[int, bytes | None] = {}  # index -> started on its FAIL side (None: nothing to start)
        look_key: bytes | None = None  # started for after this call
        looked = exhausted = False
        kept: bytes | None = None
        try:
            while True:
                slots_full = False
                while True:
                    self._read_ended(window, running)
                    ahead = sum(1 for entry in window if entry.tested)
                    if ahead + len(self._prefetched) >= self.jobs and not self._deeper(ahead + len(self._prefetched)):
                        break
                    if self._busy(running) >= self.jobs:
                        slots_full = True
                        break
                    head = drawn - len(window)  # the index of the next outcome
                    order_open = not exhausted or (if_none is not None and not looked)
                    choice = self._likeliest(window, head, branches if if_fails is not None else None, order_open)
                    if choice is _ORDER:
                        if not exhausted:
                            try:
                                text = next(source)
                            except StopIteration:
                                exhausted = True
                                continue
                            drawn += 1
                            inherited = self._draw(window, running, text, inherited)
                            continue
                        assert if_none is not None
                        looked = True
                        following = if_none()
                        look_key = self._prefetch(() if following is None else (following,), running)
                        continue
                    if choice is None:
                        break
                    assert if_fails is not None
                    branches[choice] = self._prefetch(if_fails(choice), running)
                if not window:
                    kept = look_key
                    return
                if self.stop_requested:
                    raise Interrupted
                if slots_full and window[0].pending is not None and self._another_ends_first(window[0].pending, running):
                    continue  # a test after the next one ended first: its slot takes a new candidate
                entry = window.popleft()
                index = drawn - len(window) - 1
                outcome = self._read(entry, running)
                if outcome is Outcome.FAIL:
                    kept = branches.pop(index, None)
                self._cancel_prefetched(branches.pop(other) for other in [i for i in branches if i <= index])
                yield outcome
        finally:
            for pending in running.values():
                pending.cancel()
            self.speculative += len(running)
            self._cancel_prefetched([k for k in self._prefetched if k != kept])

    def _likeliest(
        self, window: deque[_Entry], head: int, branches: dict[int, bytes | None] | None, order_open: bool
    ) -> int | object | None:
        """What a free slot should start: ``_ORDER`` (the next in order, or the one after this call
        once every candidate is drawn), the index whose FAIL side to start, or None: nothing can be needed.
        Ties go to the order.
        """
        reach = 1.0  # the chance the search reads past the entries so far
        best: int | None = None
        chance = 0.0
        for offset, entry in enumerate(window):
            fails = self._fail_chance(entry)
            if branches is not None and head + offset not in branches and reach * fails > chance:
                best, chance = head + offset, reach * fails
            reach *= 1.0 - fails
        if order_open and reach > 0 and reach >= chance:
            return _ORDER
        return best

    def _fail_chance(self, entry: _Entry) -> float:
        outcome = entry.outcome if entry.outcome is not None else self._cache.get(entry.key)
        if outcome is None:
            return self.fail_rate
        return 1.0 if outcome is Outcome.FAIL else 0.0

    def _draw(self, window: deque[_Entry], running: dict[bytes, Pending], text: str, inherited: set[bytes]) -> set[bytes]:
        """Put ``text`` in the window, started unless known or running; the inherited keys still waiting."""
        key = _digest(text)
        if inherited and (key in inherited or not self._known(key, text)):
            self._cancel_prefetched(inherited - {key})  # this call's first test is not theirs
            inherited = set()
        if self._rejected(key, text):
            window.append(_Entry(key, text, outcome=Outcome.UNRESOLVED))
        elif key in self._prefetched:
            running[key] = self._prefetched.pop(key)
            window.append(_Entry(key, text, running[key], tested=True))
        elif self._lookup(key) is not None or key in running:
            window.append(_Entry(key, text))
        else:
            assert self.start is not None
            running[key] = self.start(text)
            window.append(_Entry(key, text, running[key], tested=True))
        return inherited

    def _read_ended(self, window: deque[_Entry], running: dict[bytes, Pending]) -> None:
        """Take the verdicts of tests that ended, to know what the search needs next.

        They are recorded (cached, counted) only when read in order; until
        then their texts stay in ``running``, so that none is started again.
        """
        for entry in window:
            if entry.pending is not None and entry.outcome is None and _ended(entry.pending):
                started = time.monotonic()
                verdict = entry.pending.wait()
                self.oracle_seconds += time.monotonic() - started
                entry.outcome = verdict.outcome
                entry.pending = running[entry.key] = Finished(verdict)

    def _read(self, entry: _Entry, running: dict[bytes, Pending]) -> Outcome:
        """The outcome of the window's first entry, waiting for its test if it runs; recorded."""
        if entry.pending is not None:
            started = time.monotonic()
            verdict = entry.pending.wait()
            self.oracle_seconds += time.monotonic() - started
            running.pop(entry.key, None)
            return self._record(entry.key, entry.text, verdict.outcome)
        if entry.outcome is not None:  # it does not parse
            return entry.outcome
        if entry.key in running:  # the same text is running earlier in the window
            started = time.monotonic()
            verdict = running.pop(entry.key).wait()
            self.oracle_seconds += time.monotonic() - started
            self._record(entry.key, entry.text, verdict.outcome)
        return self._hit(entry.key)

    @property
    def fail_rate(self) -> float:
        """How likely the next test is to FAIL, from the last outcome (see :attr:`fail_rates`)."""
        return self.fail_rates[self.last_failed]

    def _deeper(self, ahead: int) -> bool:
        """Whether to start a candidate with ``ahead`` started before it, when a test that
        ended early left its slot free (more than ``jobs`` candidates ahead).

        Only while the oracle is what astreduce mostly waits for (a command's
        test: hundreds of ms): the free core would idle otherwise, so even a
        candidate unlikely to be needed costs nothing. Under the exec oracle
        astreduce's own work (rendering, forking) is the limit at ``-j 2``:
        deeper starts, mostly cancelled, made stdlib_argparse 20% slower.
        """
        if ahead >= self.jobs * _AHEAD:
            return False
        elapsed = time.monotonic() - self._began
        return self.oracle_seconds >= 0.6 * elapsed

    def _busy(self, running: dict[bytes, Pending]) -> int:
        """Tests still running (one that ended but whose outcome is not yet read holds no slot)."""
        return sum(1 for p in (*running.values(), *self._prefetched.values()) if not _ended(p))

    def _another_ends_first(self, head: Pending, running: dict[bytes, Pending]) -> bool:
        """Wait until ``head`` ends (False) or another running test does (True).

        Without this a test that ends before the one the search needs next
        keeps its slot (and a core) idle until that one ends. False at once
        when a pending cannot say when it ends: the caller then waits for
        ``head`` alone.
        """
        others = [p for p in (*running.values(), *self._prefetched.values()) if p is not head and not _ended(p)]
        if not others or not callable(getattr(head, "done", None)):
            return False
        descriptors: list[int] = []
        for pending in (head, *others):
            ready = getattr(pending, "ready_fds", None)
            fds = ready() if callable(ready) else None
            if fds is None:
                return False
            descriptors += fds
        while not self.stop_requested:
            if _ended(head):
                return False
            if any(_ended(p) for p in others):
                return True
            # at most a fifth of a second: the head's own time limit is checked by done()
            select.select(descriptors, [], [], 0.2)
        return False

    def _cancel_prefetched(self, keys: Iterable[bytes | None]) -> None:
        for key in list(keys):
            pending = self._prefetched.pop(key, None) if key is not None else None
            if pending is not None:
                pending.cancel()
                self.speculative += 1

    def _prefetch(self, texts: Iterable[str], running: dict[bytes, Pending]) -> bytes | None:
        """Start the first of ``texts`` that needs a test ahead of its call; its key if started.

        Known texts (cached, or they do not parse) are passed over, as the
        search will pass over them, up to :data:`_PASSED_OVER` of them; one
        already running ends the look.
        """
        for text in itertools.islice(texts, _PASSED_OVER):
            key = _digest(text)
            if key in self._prefetched or key in running:
                return None
            if self._known(key, text):
                continue
            assert self.start is not None
            self._prefetched[key] = self.start(text)
            return key
        return None

    def _known(self, key: bytes, text: str) -> bool:
        """Whether the outcome of ``text`` is known without a test: cached, or it does not parse."""
        return self._rejected(key, text) or self._lookup(key) is not None

    def _lookup(self, key: bytes) -> Outcome | None:
        cached = self._cache.get(key)
        if cached is None and self.store is not None:
            cached = self.store.get(key)
            if cached is not None:
                self._cache[key] = cached
        return cached

    def _hit(self, key: bytes) -> Outcome:
        self.cache_hits += 1
        return self._cache[key]

    def _record(self, key: bytes, text: str, outcome: Outcome) -> Outcome:
        self.tests += 1
        failed = outcome is Outcome.FAIL
        self.fail_rates[self.last_failed] = 0.9 * self.fail_rates[self.last_failed] + (0.1 if failed else 0.0)
        self.last_failed = failed
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
                ProgressEvent(self._pass_name, self.tests, self.cache_hits, self.best_size, self.original_size)
            )
        return outcome

    def accept(self, text: str) -> bool:
        """Make ``text`` (a candidate known to FAIL) the best if it is smaller; True if it was."""
        if text == self.best:
            return False
        size = measure(text)
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

    def first_failing(
        self,
        texts: Iterable[str],
        if_fails: Callable[[int], Iterable[str]] | None = None,
        if_none: Callable[[], str | None] | None = None,
    ) -> int | None:
        """Index of the first candidate that FAILs, testing lazily in order (the hints: see :meth:`outcomes`)."""
        results = self.outcomes(texts, if_fails, if_none)
        try:
            for index, outcome in enumerate(results):
                if outcome is Outcome.FAIL:
                    return index
        finally:
            close = getattr(results, "close", None)
            if close is not None:
                close()
        return None

    # --- passes -----------------------------------------------------------

    def begin_pass(self, name: str) -> PassStats:
        self._pass_name = name
        stats = PassStats(name, tests=self.tests, seconds=time.monotonic(), tokens_before=self.best_size.tokens)
        return stats

    def end_pass(self, stats: PassStats) -> None:
        stats.tests = self.tests - stats.tests
        stats.seconds = time.monotonic() - stats.seconds
        stats.tokens_after = self.best_size.tokens
        self.passes.append(stats)


#: Candidates started ahead (running or ended, not yet read) at most, per job.
_AHEAD = 3

#: Known candidates passed over at most, looking for the first to start ahead.
_PASSED_OVER = 32

#: What :meth:`Session._likeliest` returns for the next candidate in the search's order.
_ORDER = object()


@dataclass
class _Entry:
    """A candidate of the parallel window, in the search's order."""

    key: bytes
    text: str
    pending: Pending | None = None
    """Its own test (:class:`Finished` once its verdict was taken early), until it is read."""
    outcome: Outcome | None = None
    """Known before it is read: it does not parse, or its test ended."""
    tested: bool = False
    """Its own test was started (it counts as a candidate started ahead)."""


def _ended(pending: Pending) -> bool:
    """Whether a test has ended, when its pending can tell without blocking (else: not yet)."""
    done = getattr(pending, "done", None)
    return bool(done()) if callable(done) else False


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=20).digest()
