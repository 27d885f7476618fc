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
    stale: set[bytes] = field(default_factory=set)
    """Keys (:func:`~astreduce.strategies.change_key`) of single edits that did not FAIL alone."""
    retry_stale: bool = False
    """Test stale single edits one by one again (``--exhaustive``): slower, 1-minimal in every round."""

    def __post_init__(self) -> None:
        self.best = self.text
        self.best_size = measure(self.text)
        self.original_size = self.best_size
        self._cache: dict[bytes, Outcome] = {hashlib.blake2b(self.text.encode("utf-8", "surrogateescape")).digest(): Outcome.FAIL}
        self._pass_name = "start"
        self.history.append((0, self.best_size.tokens))
        self._saved = self.text

    # --- testing ----------------------------------------------------------

    def outcome(self, text: str) -> Outcome:
        for result in self.outcomes([text]):
            return result
        raise AssertionError("no outcome")  # pragma: no cover

    def outcomes(self, texts: Iterable[str]) -> Iterator[Outcome]:
        """Outcomes of candidate texts, lazily, in order; cached ones cost no test."""
        if self.start is None or self.jobs <= 1:
            for text in texts:
                yield self._one(text)
            return
        yield from self._parallel(texts)

    @contextmanager
    def parsing_candidates_only(self) -> Iterator[None]:
        """Within this block, candidates that do not parse are UNRESOLVED without a test.

        Token-level passes produce mostly broken syntax; checking it here costs
        a parse instead of an oracle run. Passes over syntax trees do not need it.
        """
        saved = self.require_parse
        self.require_parse = True
        try:
            yield
        finally:
            self.require_parse = saved

    def _rejected(self, key: bytes, text: str) -> bool:
        if not self.require_parse or key in self._cache:
            return False
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a candidate's odd literals are not our warnings
                ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            self._cache[key] = Outcome.UNRESOLVED
            self.syntax_rejections += 1
            return True
        return False

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

    def _parallel(self, texts: Iterable[str]) -> Iterator[Outcome]:
        """Keep up to ``jobs`` uncached candidates running ahead; yield outcomes in order.

        The consumer decides on outcomes in order, so the first FAIL in the
        search's own order wins whatever finishes first: results are the same
        for every ``jobs``. When the consumer stops reading, running
        candidates are cancelled at once.
        """
        assert self.start is not None
        source = iter(texts)
        window: deque[tuple[bytes, str, Pending | None, Outcome | None]] = deque()
        pending: Pending | None
        running: dict[bytes, Pending] = {}
        exhausted = False
        try:
            while True:
                while not exhausted and len(running) < self.jobs:
                    try:
                        text = next(source)
                    except StopIteration:
                        exhausted = True
                        break
                    key = _digest(text)
                    if self._rejected(key, text):
                        window.append((key, text, None, Outcome.UNRESOLVED))
                    elif self._lookup(key) is not None or key in running:
                        window.append((key, text, None, None))
                    else:
                        pending = self.start(text)
                        running[key] = pending
                        window.append((key, text, pending, None))
                if not window:
                    return
                if self.stop_requested:
                    raise Interrupted
                key, text, pending, known = window.popleft()
                if known is not None:
                    yield known
                elif pending is None:
                    if key in running:  # the same text is running earlier in the window
                        started = time.monotonic()
                        verdict = running.pop(key).wait()
                        self.oracle_seconds += time.monotonic() - started
                        self._record(key, text, verdict.outcome)
                    yield self._hit(key)
                else:
                    started = time.monotonic()
                    verdict = pending.wait()
                    self.oracle_seconds += time.monotonic() - started
                    running.pop(key, None)
                    yield self._record(key, text, verdict.outcome)
        finally:
            for pending in running.values():
                pending.cancel()
            self.speculative += len(running)

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

    def first_failing(self, texts: Iterable[str]) -> int | None:
        """Index of the first candidate that FAILs, testing lazily in order."""
        results = self.outcomes(texts)
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


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=20).digest()
