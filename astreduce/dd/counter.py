"""Counter-based delta debugging (CDD; Zhang et al., "Toward a Better Understanding of
Probabilistic Delta Debugging", ICSE 2025).

The paper shows that ProbDD's probabilities act as counters: every element
starts at the same prior ``p0``; an element's probability of being needed
grows by a factor of about 1 / (1 − e⁻¹) each time it sits in a subset whose
deletion did not FAIL, and the best subset size for probability ``p`` is
about −1 / ln(1 − p). CDD keeps just the counters. Here every element has
its own counter (how many of its deletions did not FAIL); a round sorts the
elements by counter (then by position), cuts each group of equal counters
into consecutive subsets of the size its counter gives, and tries to delete
each subset in turn, keeping the deletions that still FAIL. Subsets shrink
round by round down to single elements.

Unlike ddmin, CDD never tests a subset on its own and never revisits a
complement: in ddmin those are 87% of the tests and succeed less than 0.5% of
the time (the paper's figures), and CDD needed 84% fewer tests than ddmin on
its 76 benchmarks. The paper's CDD stops after its round of single elements,
which is not always 1-minimal (a later deletion can free an earlier
element); here rounds of single elements repeat until one deletes nothing, so
the result is **1-minimal**: each of its elements was tested alone against
it. With ``weights`` (WDD, Zhou et al., ICSE 2025) subsets hold about the
same *weight* (for example the size of a node's subtree) rather than the
same number of elements, so a heavy element is tried alone early.

The prior ``p0`` defaults to the paper's 0.1 (subsets of about ten). For
inputs of which only a tiny fraction is needed (one element among 100,000),
halving as ddmin does is far cheaper: give ``p0`` = 1 / n there, which starts
with the whole input as one subset.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from astreduce.dd.deletion import delete_in_turn, failing_only, prior_search
from astreduce.dd.runner import Config, Runner
from astreduce.dd.weighted import weighted_cuts

T = TypeVar("T")

#: How a failed deletion raises an element's probability: 1 / (1 − e⁻¹).
GROWTH = 1 / (1 - math.exp(-1))


def subset_size(p0: float, counter: int) -> int:
    """The subset size for an element whose deletions failed ``counter`` times: about −1 / ln(1 − p)."""
    p = p0 * GROWTH**counter
    if p >= 0.5:  # −1 / ln(1 − p) < 1.45: subsets of one from here on
        return 1
    return max(1, round(-1 / math.log1p(-p)))


@prior_search
def cdd_search(runner: Runner[T], current: Config, p0: float, weights: Sequence[float] | None) -> Config:
    """Minimise ``elements`` by CDD; the :class:`~astreduce.dd.algorithm.DDResult` of mode ``-``.

    Called as ``cdd_search(elements, test, *, p0=0.1, weights=None, batch=None, cache=True, progress=None)``.

    Args:
        elements, test, batch, cache, progress: as for :func:`~astreduce.dd.algorithm.dd`.
        p0: the prior probability that an element is needed (0 < p0 < 1).
        weights: one non-negative weight per element; subsets are cut by weight, not count.

    Raises:
        DDPreconditionError: the full input does not FAIL.
    """
    counters = [0] * len(runner.elements)
    while current:
        subsets = _partition(current, counters, p0, weights)
        single = all(len(s) == 1 for s in subsets)
        current, kept = delete_in_turn(runner, current, subsets)
        for subset, was_kept in zip(subsets, kept):
            if not was_kept:
                for i in subset:
                    counters[i] += 1
        if single and not any(kept):
            break
    return current


def _partition(current: Config, counters: list[int], p0: float, weights: Sequence[float] | None) -> list[Config]:
    """One round's subsets: elements grouped by counter, least tried first, each group cut by size."""
    groups: dict[int, list[int]] = {}
    for i in current:
        groups.setdefault(counters[i], []).append(i)
    subsets: list[Config] = []
    for counter in sorted(groups):
        group = groups[counter]
        size = subset_size(p0, counter)
        parts = -(-len(group) // size)
        if weights is None:
            subsets += [tuple(group[k * size : (k + 1) * size]) for k in range(parts)]
        else:
            subsets += weighted_cuts(group, weights, parts)
    return subsets


cdd: Callable[..., Sequence[Any]] = failing_only(cdd_search, """A 1-minimal failing subsequence of ``elements`` found by CDD (see :func:`cdd_search`).""")

