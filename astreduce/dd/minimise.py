"""Choosing a minimiser by name: ddmin, WDD, CDD or ProbDD, all with ddmin's interface.

Every minimiser takes a sequence and a test (and the optional batch, cache
and progress of :func:`~astreduce.dd.algorithm.dd`) and returns a
:class:`~astreduce.dd.algorithm.DDResult` of mode ``-``; the searches in
:mod:`astreduce.search.greedy` call them through :func:`minimise`.
:data:`DEFAULT` is the one ``bench/bench_dd.py`` measured to need the fewest
tests at equal result sizes.

=========  ===========================================  ===========
name       algorithm                                    1-minimal
=========  ===========================================  ===========
ddmin      Zeller & Hildebrandt, TSE 2002               yes
wddmin     ddmin cutting by weight (WDD, ICSE 2025)     yes
cdd        counter-based DD (ICSE 2025)                 yes (final rounds of singles repeat)
probdd     probabilistic DD (ESEC/FSE 2021)             no: each element failed to go alone once
=========  ===========================================  ===========
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from astreduce.dd.algorithm import DDResult, dd
from astreduce.dd.counter import cdd_search
from astreduce.dd.probabilistic import probdd_search
from astreduce.dd.runner import BatchFunction, ProgressCallback, TestFunction

T = TypeVar("T")

ALGORITHMS = ("ddmin", "wddmin", "cdd", "probdd")
#: The minimiser the searches use unless told otherwise.
DEFAULT = "cdd"


def minimise(
    elements: Sequence[T],
    test: TestFunction[T],
    algorithm: str = DEFAULT,
    *,
    weights: Sequence[float] | None = None,
    batch: BatchFunction[T] | None = None,
    cache: bool = True,
    progress: ProgressCallback | None = None,
) -> DDResult[T]:
    """Minimise ``elements`` with ``algorithm`` (one of :data:`ALGORITHMS`).

    ``weights`` (one per element, for example a node's subtree size) are used
    by ``wddmin``, ``cdd`` and ``probdd``; ``ddmin`` cuts by count.

    Raises:
        DDPreconditionError: the full input does not FAIL.
        ValueError: an unknown algorithm, or as many weights as elements not given.
    """
    if algorithm == "ddmin":
        return dd(elements, test, "-", batch=batch, cache=cache, progress=progress)
    if algorithm == "wddmin":
        weights = weights if weights is not None else [1.0] * len(elements)
        return dd(elements, test, "-", batch=batch, cache=cache, progress=progress, weights=weights)
    if algorithm == "cdd":
        return cdd_search(elements, test, weights=weights, batch=batch, cache=cache, progress=progress)
    if algorithm == "probdd":
        return probdd_search(elements, test, weights=weights, batch=batch, cache=cache, progress=progress)
    raise ValueError(f"unknown minimiser {algorithm!r}; choose from {', '.join(ALGORITHMS)}")
