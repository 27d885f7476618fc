"""Binary reduction: the smallest prefixes that fail, found by bisection, one needed element at a time.

For changes that depend on each other (a use needs a definition, a call
needs the new signature), ddmin from the whole set degenerates: almost every
complement breaks something, so it goes down to single removals and tests
about n² configurations. Binary reduction (Kalhauge & Palsberg, "Binary
reduction of dependency graphs", ESEC/FSE 2019) goes up from the empty set
instead, over elements that each carry what they depend on (the caller
closes every configuration under its dependencies):

1. ``required`` starts empty; while ``required`` alone does not fail,
2. bisect for the shortest prefix ``pool[:i + 1]`` such that ``required`` plus
   it fails (the whole pool does): then ``pool[i]`` is needed, given the
   elements before it; add it to ``required`` and keep ``pool[:i]``.

Each needed element costs about log₂ n tests, so k needed elements among n
cost O(k log n), where ddmin needs O(k log n) at best and O(n²) at worst.
It asks only whether a configuration fails: a configuration that is broken
and one that passes look the same to it, which is what an interestingness
script can tell. The result fails; it is not always 1-minimal (an element
found early may be needless once later ones are in), which a finer level
settles.

Every test goes through ``fails(config, then_if_fails, then_if_not)``: the
two configurations it tests next either way, so that a parallel scheduler
may start the one it will need before the verdict is in. The sequence of
tests, and so the result, is the same however many run at once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")

#: ``fails(config, next_if_fails, next_if_not)``: whether ``config`` fails; the two arguments after it are hints.
Probe = Callable[[list[T], "list[T] | None", "list[T] | None"], bool]


def binary_reduction(elements: Sequence[T], fails: Probe[T]) -> list[T]:
    """The needed elements of ``elements`` (all of which fail), in their order; empty when none are.

    ``fails`` is never asked about the whole of ``elements`` (the caller knows it fails).
    """
    required: list[T] = []
    pool = list(elements)
    position = {id(e): i for i, e in enumerate(elements)}

    def prefix(last: int) -> list[T]:
        return [*required, *pool[: last + 1]]

    def after(low: int, high: int) -> list[T]:
        """What is tested once the bisection stands at (low, high): its next prefix, or the next round's first test."""
        return prefix((low + high) // 2) if high - low > 1 else [*required, pool[high]]

    while pool:
        # the prefix of length high + 1 fails (the whole pool, at first), that of length low + 1 does not
        low, high = -1, len(pool) - 1
        if fails(list(required), None, after(low, high)):
            break
        while high - low > 1:
            middle = (low + high) // 2
            if fails(prefix(middle), after(low, middle), after(middle, high)):
                high = middle
            else:
                low = middle
        required.append(pool[high])
        pool = pool[:high]
    return sorted(required, key=lambda e: position[id(e)])
