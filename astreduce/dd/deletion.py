"""What the deletion-only minimisers share: the start check, deletions in turn, weighted cuts.

CDD and ProbDD (:mod:`astreduce.dd.counter`, :mod:`astreduce.dd.probabilistic`)
never test a subset on its own nor revisit a complement: every test asks
whether the current failing configuration still FAILs without one subset.
:func:`delete_in_turn` asks that for a list of subsets, keeping each deletion
that FAILs; it hands the :class:`~astreduce.dd.runner.Runner` all the
candidates it would test if none FAILed, so a parallel batch can run ahead,
and starts over from the first FAIL. :func:`weighted_cuts` splits a run of
elements into parts of about equal weight (WDD, Zhou et al., ICSE 2025).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from astreduce.dd.runner import Config, Runner
from astreduce.errors import DDPreconditionError
from astreduce.outcome import Outcome

T = TypeVar("T")


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


def weighted_cuts(items: Sequence[int], weights: Sequence[float], parts: int) -> list[Config]:
    """Split ``items`` (indices into ``weights``) into at most ``parts`` contiguous, non-empty
    parts of about equal total weight: a heavy element ends up alone, light ones together."""
    parts = max(1, min(parts, len(items)))
    total = sum(weights[i] for i in items)
    result: list[Config] = []
    current: list[int] = []
    seen = 0.0
    for position, item in enumerate(items):
        current.append(item)
        seen += weights[item]
        left_parts = parts - len(result) - 1  # parts still to fill after this one
        left_items = len(items) - position - 1
        if left_parts == 0:
            continue
        if left_items == left_parts or seen >= total * (len(result) + 1) / parts:
            result.append(tuple(current))
            current = []
    if current:
        result.append(tuple(current))
    return result
