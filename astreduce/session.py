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
import select
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass, field

from astreduce.cache import OutcomeStore
from astreduce.measure import Size, measure
from astreduce.oracles import Pending, Verdict
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
    """Keys (:func:`~astreduce.strategies.change_key`) of single edits that did not FAIL alone."""
    retry_stale: bool = False
    """Test stale single edits one by one again (``--exhaustive``): slower, 1-minimal in every round."""
    lookahead: Callable[[str], str | None] | None = None
    """Set by a strategy during a pass: the next pass's first candidate, should this pass end with the given text."""
    fail_rate: float = 0.3
    """A moving average of how often a test FAILs: where speculation pays, on the FAIL or the PASS side."""

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
        if_fails: Callable[[int], str | None] | None = None,
        if_none: Callable[[], str | None] | None = None,
    ) -> Iterator[Outcome]:
        """Outcomes of candidate texts, lazily, in order; cached ones cost no test.

        ``if_fails(i)`` is the text the search tests next if the ``i``-th
        candidate FAILs, ``if_none()`` the one it tests next if none does
        (None: not known). A parallel executor may start them early.
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
        self, texts: Iterable[str], if_fails: Callable[[int], str | None] | None, if_none: Callable[[], str | None] | None
    ) -> Iterator[Outcome]:
        """Keep up to ``jobs`` uncached candidates running ahead; yield outcomes in order.

        The consumer decides on outcomes in order, so the first FAIL in the
        search's own order wins whatever finishes first: results are the same
        for every ``jobs``. A free slot goes to whichever is likelier to be
        needed (from :attr:`fail_rate`): the next candidate in order, needed
        if none before it FAILs; the one the search tests after the next
        outcome if that is a FAIL (``if_fails``); or, once every candidate is
        drawn, the one it tests after this call if nothing FAILs
        (``if_none``). The last two are kept running into the next call,
        which adopts them if its first candidate is theirs. When the consumer
        stops reading, the rest is cancelled at once.
        """
        assert self.start is not None
        source = iter(texts)
        window: deque[tuple[bytes, str, Pending | None, Outcome | None]] = deque()
        pending: Pending | None
        running: dict[bytes, Pending] = {}
        inherited = set(self._prefetched)  # started by the previous call: adopted by this one's first text or never
        drawn = 0  # texts taken from ``source``: the index of the next one
        branched = -1  # the last index whose FAIL side was considered
        branch_key: bytes | None = None  # started on the FAIL side of the next outcome
        look_key: bytes | None = None  # started for after this call
        looked = exhausted = False
        kept: bytes | None = None
        try:
            while True:
                slots_full = False
                while True:
                    ahead = sum(1 for entry in window if entry[2] is not None)
                    if ahead + len(self._prefetched) >= self.jobs and not self._deeper(ahead + len(self._prefetched)):
                        break
                    if self._busy(running) >= self.jobs:
                        slots_full = True
                        break
                    head = drawn - len(window)  # the index of the next outcome
                    can_branch = if_fails is not None and branched < head and bool(window) and window[0][2] is not None
                    can_look = exhausted and if_none is not None and not looked
                    if can_branch and (
                        self.fail_rate > (1 - self.fail_rate) ** ahead
                        or (exhausted and (not can_look or self.fail_rate >= 0.5))
                    ):
                        assert if_fails is not None
                        branched = head
                        branch_key = self._prefetch(if_fails(head), running)
                        continue
                    if can_look:
                        assert if_none is not None
                        looked = True
                        look_key = self._prefetch(if_none(), running)
                        continue
                    if exhausted:
                        break
                    try:
                        text = next(source)
                    except StopIteration:
                        exhausted = True
                        continue
                    drawn += 1
                    key = _digest(text)
                    if drawn == 1 and inherited and key not in inherited:
                        self._cancel_prefetched(inherited)
                    if self._rejected(key, text):
                        window.append((key, text, None, Outcome.UNRESOLVED))
                    elif key in self._prefetched:
                        running[key] = self._prefetched.pop(key)
                        window.append((key, text, running[key], None))
                    elif self._lookup(key) is not None or key in running:
                        window.append((key, text, None, None))
                    else:
                        pending = self.start(text)
                        running[key] = pending
                        window.append((key, text, pending, None))
                if not window:
                    kept = look_key
                    return
                if self.stop_requested:
                    raise Interrupted
                if slots_full and window[0][2] is not None and self._another_ends_first(window[0][2], running):
                    continue  # a test after the next one ended first: its slot takes a new candidate
                key, text, pending, known = window.popleft()
                if known is not None:
                    outcome = known
                elif pending is None:
                    if key in running:  # the same text is running earlier in the window
                        started = time.monotonic()
                        verdict = running.pop(key).wait()
                        self.oracle_seconds += time.monotonic() - started
                        self._record(key, text, verdict.outcome)
                    outcome = self._hit(key)
                else:
                    started = time.monotonic()
                    verdict = pending.wait()
                    self.oracle_seconds += time.monotonic() - started
                    running.pop(key, None)
                    outcome = self._record(key, text, verdict.outcome)
                if outcome is Outcome.FAIL:
                    kept = branch_key
                elif branch_key is not None:
                    self._cancel_prefetched([branch_key])
                branch_key = None
                yield outcome
        finally:
            for pending in running.values():
                pending.cancel()
            self.speculative += len(running)
            self._cancel_prefetched([k for k in self._prefetched if k != kept])

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

    def _cancel_prefetched(self, keys: Iterable[bytes]) -> None:
        for key in list(keys):
            pending = self._prefetched.pop(key, None)
            if pending is not None:
                pending.cancel()
                self.speculative += 1

    def _prefetch(self, text: str | None, running: dict[bytes, Pending]) -> bytes | None:
        """Start ``text`` ahead of its call, unless it is known, running or does not parse; its key if started."""
        if text is None:
            return None
        key = _digest(text)
        if key in self._prefetched or key in running or self._rejected(key, text) or self._lookup(key) is not None:
            return None
        assert self.start is not None
        self._prefetched[key] = self.start(text)
        return key

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
        self.fail_rate = 0.9 * self.fail_rate + (0.1 if outcome is Outcome.FAIL else 0.0)
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
        if_fails: Callable[[int], str | None] | None = None,
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


def _ended(pending: Pending) -> bool:
    """Whether a test has ended, when its pending can tell without blocking (else: not yet)."""
    done = getattr(pending, "done", None)
    return bool(done()) if callable(done) else False


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=20).digest()
