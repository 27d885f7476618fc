"""Weighted cuts (WDD, Zhou et al., "WDD: Weighted Delta Debugging", ICSE 2025).

ddmin and CDD cut a list into parts of equal *count*; WDD cuts it into parts
of about equal *weight* (for example the size of the text or subtree an
element stands for), so that an element holding half of the input is tried
on its own at once instead of being deleted together with many light ones.
:func:`~astreduce.dd.algorithm.dd` and :func:`~astreduce.dd.counter.cdd_search`
cut by weight when given ``weights``.
"""

from __future__ import annotations

from collections.abc import Sequence

from astreduce.dd.runner import Config


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
