"""Running tests for delta debugging: the outcome cache, counters and batches.

A *configuration* is a sorted tuple of indices into the original elements.
The :class:`Runner` turns configurations into the caller's type (``str``,
``bytes``, ``list``, ``tuple``), asks the test function, caches every outcome
so that no configuration is tested twice, counts tests and cache hits, and
reports progress.

Batches: the algorithms ask for the outcomes of a *list* of candidates in
their own order and stop reading as soon as they have what they need
(:meth:`Runner.outcomes` is a lazy iterator). A caller that supplies
``batch`` receives the uncached candidates of such a list at once and may
evaluate them speculatively in parallel; because it must yield outcomes in
the same order, the algorithm's decisions, and so its result, are the same
as with sequential tests. Closing the iterator early tells the batch
function that the rest of its work is stale.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from astreduce.outcome import Outcome

T = TypeVar("T")
Config = tuple[int, ...]

#: A test function: a candidate (of the input's type) to its outcome, or to a bool:
#: True (the failure reproduces) is FAIL, False is PASS, as for ``interesting=``.
TestFunction = Callable[[Sequence[T]], Outcome | bool]
#: A batch function: candidates in dd's order to their outcomes (or bools), lazily, in that order.
BatchFunction = Callable[[list[Sequence[T]]], Iterator[Outcome | bool]]


@dataclass(frozen=True, slots=True)
class Progress:
    """A snapshot handed to the progress callback after every test."""

    tests: int
    cache_hits: int
    size: int
    """Size of the candidate just tested."""
    outcome: Outcome
    best_size: int
    """Size of the smallest failing configuration known so far."""


ProgressCallback = Callable[[Progress], None]


def as_outcome(answer: object) -> Outcome:
    """A test function's answer as an :class:`Outcome`: True (reproduces) is FAIL, False is PASS.

    Raises:
        TypeError: the answer is neither an Outcome nor a bool.
    """
    if isinstance(answer, Outcome):
        return answer
    if isinstance(answer, bool):
        return Outcome.FAIL if answer else Outcome.PASS
    raise TypeError(
        f"the test function returned {answer!r}, not an Outcome or a bool "
        "(True: the failure reproduces, FAIL; False: PASS)"
    )


def configured(elements: Sequence[T], config: Config) -> Sequence[T]:
    """Return the elements at ``config`` as a value of the same type as ``elements``."""
    if isinstance(elements, str):
        return "".join(elements[i] for i in config)  # type: ignore[return-value]  # str is a Sequence[str]
    if isinstance(elements, bytes):
        return bytes(elements[i] for i in config)  # type: ignore[return-value]  # bytes is a Sequence[int]
    if isinstance(elements, tuple):
        return tuple(elements[i] for i in config)
    return [elements[i] for i in config]


class Runner(Generic[T]):
    """Cached, counted access to a test function over configurations."""

    def __init__(
        self,
        elements: Sequence[T],
        test: TestFunction[T],
        *,
        batch: BatchFunction[T] | None = None,
        cache: bool = True,
        progress: ProgressCallback | None = None,
    ) -> None:
        self.elements = elements
        self._test = test
        self._batch = batch
        self._use_cache = cache
        self._cache: dict[Config, Outcome] = {}
        self._progress = progress
        self.tests = 0
        self.cache_hits = 0
        self.best_size = len(elements)

    def outcome(self, config: Config) -> Outcome:
        """The outcome of one configuration."""
        for result in self.outcomes([config]):
            return result
        raise AssertionError("outcomes() yielded nothing")  # pragma: no cover

    def outcomes(self, configs: list[Config]) -> Iterator[Outcome]:
        """Outcomes of ``configs``, lazily and in order (see the module docstring)."""
        if self._batch is None:
            for config in configs:
                yield self._sequential(config)
            return
        pending: list[Config] = []
        seen: set[Config] = set()
        for config in configs:
            if (not self._use_cache or config not in self._cache) and config not in seen:
                pending.append(config)
                seen.add(config)
        results = self._batch([configured(self.elements, c) for c in pending]) if pending else iter(())
        try:
            position = 0
            for config in configs:
                if self._use_cache and config in self._cache:
                    yield self._hit(config)
                    continue
                if position < len(pending) and pending[position] == config:
                    result = next(results)
                    position += 1
                    yield self._record(config, result)
                else:  # a duplicate within this list and the cache is off: test again
                    yield self._record(config, self._test(configured(self.elements, config)))
        finally:
            close = getattr(results, "close", None)
            if close is not None:
                close()

    def _sequential(self, config: Config) -> Outcome:
        if self._use_cache and config in self._cache:
            return self._hit(config)
        return self._record(config, self._test(configured(self.elements, config)))

    def _hit(self, config: Config) -> Outcome:
        self.cache_hits += 1
        return self._cache[config]

    def _record(self, config: Config, answer: Outcome | bool) -> Outcome:
        result = as_outcome(answer)
        self.tests += 1
        if self._use_cache:
            self._cache[config] = result
        if result is Outcome.FAIL and len(config) < self.best_size:
            self.best_size = len(config)
        if self._progress is not None:
            self._progress(
                Progress(self.tests, self.cache_hits, len(config), result, self.best_size)
            )
        return result
