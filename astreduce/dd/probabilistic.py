"""Probabilistic delta debugging (ProbDD; Wang et al., ESEC/FSE 2021).

Every element carries a probability that it is needed, starting at a prior
``p0``. Each step sorts the remaining elements by probability (then by
position) and picks the prefix of size ``s`` that maximises the expected gain
``s · ∏(1 − p_i)`` over its elements, that is how many elements a deletion
removes times the chance that none of them is needed, and tries to delete
it. A deletion that still FAILs is kept; otherwise Bayes' rule raises the
probability of every element of the subset, ``p_i ← p_i / (1 − ∏(1 − p_j))``,
which makes it 1 for an element tested alone. The search ends when every
remaining element has probability 1. The published ProbDD draws among equal
probabilities at random; here ties go by position, so runs are
deterministic (the ICSE 2025 re-analysis found randomness adds little).

What it promises: the result FAILs and each of its elements failed to go
alone at some point of the search, but not necessarily against the final
result, so it is not always 1-minimal (the paper's own limitation). With
``weights`` (WDD, Zhou et al., ICSE 2025) the gain counts the weight removed,
``(Σ w_i) · ∏(1 − p_i)``, so heavy elements are tried in small subsets.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from astreduce.dd.deletion import minus, prior_search
from astreduce.dd.runner import Config, Runner
from astreduce.outcome import Outcome

T = TypeVar("T")

#: Candidates handed to a batch at once, assuming none of them FAILs (for speculation).
LOOKAHEAD = 8


def _choose(current: Config, p: list[float], weights: Sequence[float] | None) -> Config:
    """The subset with the best expected gain among the least likely needed elements."""
    order = sorted((i for i in current if p[i] < 1.0), key=lambda i: (p[i], i))
    best: list[int] = []
    best_gain = 0.0
    keep = 1.0
    removed = 0.0
    for count, i in enumerate(order, start=1):
        keep *= 1.0 - p[i]
        removed += 1.0 if weights is None else weights[i]
        gain = removed * keep
        if gain > best_gain:
            best_gain = gain
            best = order[:count]
    if not best and order:
        best = order[:1]  # every gain is zero (weights of zero): still try the first one
    return tuple(sorted(best))


def _update(p: list[float], subset: Config) -> None:
    """Bayes' rule after the deletion of ``subset`` did not FAIL: one of them is needed."""
    none_needed = 1.0
    for i in subset:
        none_needed *= 1.0 - p[i]
    some_needed = 1.0 - none_needed
    for i in subset:
        p[i] = 1.0 if len(subset) == 1 or some_needed <= 0 else min(1.0, p[i] / some_needed)


@prior_search
def probdd_search(runner: Runner[T], current: Config, p0: float, weights: Sequence[float] | None) -> Config:
    """Minimise ``elements`` by ProbDD; the :class:`~astreduce.dd.algorithm.DDResult` of mode ``-``.

    Called and answering as :func:`~astreduce.dd.counter.cdd_search`.
    """
    p = [p0] * len(runner.elements)
    while True:
        # the next steps if no deletion FAILs: each is known before the tests run
        planned: list[Config] = []
        trial = p.copy()
        while len(planned) < LOOKAHEAD:
            subset = _choose(current, trial, weights)
            if not subset:
                break
            planned.append(subset)
            _update(trial, subset)
        if not planned:
            break
        found = None
        results = runner.outcomes([minus(current, s) for s in planned])
        try:
            for step, result in enumerate(results):
                if result is Outcome.FAIL:
                    found = step
                    break
                _update(p, planned[step])
        finally:
            results.close()  # type: ignore[attr-defined]  # a generator: tells a batch its rest is stale
        if found is not None:
            current = minus(current, planned[found])
    return current

