"""What the deletion-only minimisers share: their checks, their result, deletions in turn.

CDD and ProbDD (:mod:`astreduce.dd.counter`, :mod:`astreduce.dd.probabilistic`)
never test a subset on its own nor revisit a complement: every test asks
whether the current failing configuration still FAILs without one subset.
:func:`delete_in_turn` asks that for a list of subsets, keeping each deletion
that FAILs; it hands the :class:`~astreduce.dd.runner.Runner` all the
candidates it would test if none FAILed, so a parallel batch can run ahead,
and starts over from the first FAIL.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any, ParamSpec, TypeVar

from astreduce.dd.algorithm import DDResult
from astreduce.dd.runner import BatchFunction, Config, ProgressCallback, Runner, TestFunction, configured
from astreduce.errors import DDPreconditionError
from astreduce.outcome import Outcome

T = TypeVar("T")
P = ParamSpec("P")

#: The papers' prior probability that an element is needed (CDD and ProbDD alike).
DEFAULT_P0 = 0.1


def failing_only(search: Callable[P, DDResult[T]], doc: str) -> Callable[P, Sequence[T]]:
    """``search`` (a minimiser named ``*_search``) answering only its 1-minimal failing configuration,
    under the name without ``_search`` (``cdd`` from ``cdd_search``): the same arguments, written once."""

    @functools.wraps(search)
    def minimal(*args: P.args, **kwargs: P.kwargs) -> Sequence[T]:
        return search(*args, **kwargs).failing

    minimal.__name__ = minimal.__qualname__ = search.__name__.removesuffix("_search")
    minimal.__doc__ = doc
    minimal.__signature__ = inspect.signature(search).replace(return_annotation="Sequence[T]")  # type: ignore[attr-defined]  # read by inspect and help()
    return minimal


#: The rounds of a prior-driven minimiser: from the runner, the full configuration (which FAILs), the
#: prior and the weights, to the configuration it ends at.
Rounds = Callable[[Runner[T], Config, float, "Sequence[float] | None"], Config]


def prior_search(rounds: Rounds[Any]) -> Callable[..., DDResult[Any]]:
    """The public minimiser of ``rounds`` (CDD's, ProbDD's): its arguments checked, its runner made, its
    start checked, its end made a result; the name and docstring are the rounds'."""

    def search(
        elements: Sequence[T],
        test: TestFunction[T],
        *,
        p0: float = DEFAULT_P0,
        weights: Sequence[float] | None = None,
        batch: BatchFunction[T] | None = None,
        cache: bool = True,
        progress: ProgressCallback | None = None,
    ) -> DDResult[T]:
        check_parameters(elements, p0, weights)
        runner = Runner(elements, test, batch=batch, cache=cache, progress=progress)
        return minimised(runner, rounds(runner, check_start(runner), p0, weights))

    for name in ("__module__", "__name__", "__qualname__", "__doc__"):  # not the annotations: help()
        setattr(search, name, getattr(rounds, name))  # shows the public signature, not the rounds'
    return search


def check_parameters(elements: Sequence[object], p0: float, weights: Sequence[float] | None) -> None:
    """Reject a prior outside (0, 1) and a weight list of the wrong length."""
    if not 0 < p0 < 1:
        raise ValueError(f"p0 must lie strictly between 0 and 1, not {p0}")
    if weights is not None and len(weights) != len(elements):
        raise ValueError(f"{len(weights)} weights for {len(elements)} elements")


def minimised(runner: Runner[T], current: Config) -> DDResult[T]:
    """The result of a minimiser (mode ``-``) that ended at ``current``."""
    failing = configured(runner.elements, current)
    return DDResult(
        mode="-",
        passing=configured(runner.elements, ()),
        failing=failing,
        difference=failing,
        tests=runner.tests,
        cache_hits=runner.cache_hits,
    )


def check_start(runner: Runner[T]) -> Config:
    """The full configuration, after checking that it FAILs."""
    full: Config = tuple(range(len(runner.elements)))
    outcome = runner.outcome(full)
    if outcome is not Outcome.FAIL:
        raise DDPreconditionError(f"the full input does not fail: its outcome is {outcome}")
    return full


def minus(whole: Config, part: Sequence[int]) -> Config:
    drop = set(part)
    return tuple(i for i in whole if i not in drop)


def delete_in_turn(runner: Runner[T], current: Config, subsets: list[Config]) -> tuple[Config, list[bool]]:
    """Try deleting each subset from ``current`` in order; keep those that still FAIL.

    Returns the new configuration and, per subset, whether its deletion was kept.
    Candidates go to the runner :data:`WINDOW` at a time, assuming none FAILs.
    """
    kept = [False] * len(subsets)
    start = 0
    while start < len(subsets):
        window: list[tuple[int, Config]] = []
        for offset in range(start, len(subsets)):
            candidate = minus(current, subsets[offset])
            if len(candidate) < len(current):  # a subset already gone is not tested
                window.append((offset, candidate))
                if len(window) == WINDOW:
                    break
        if not window:
            break
        found = None
        results = runner.outcomes([candidate for _, candidate in window])
        try:
            for (offset, _), result in zip(window, results):
                if result is Outcome.FAIL:
                    found = offset
                    break
        finally:
            results.close()  # type: ignore[attr-defined]  # a generator: tells a batch its rest is stale
        if found is None:
            start = window[-1][0] + 1
            continue
        current = minus(current, subsets[found])
        kept[found] = True
        start = found + 1
    return current, kept


#: Candidates :func:`delete_in_turn` hands to the runner at once (a parallel batch runs ahead in them).
WINDOW = 16
