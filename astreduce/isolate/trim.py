"""Removing changes one at a time: where ddmin's halving does not pay.

When most of a set of changes is needed — the passing changes a difference
requires, a patch split into single lines — ddmin's complements of one or two
changes, repeated from the start after every success, cost several times
more tests than trying each removal once, in order. :func:`trim` is one
such sweep; :func:`sweep` repeats it, growing runs of removals, until a
sweep removes nothing, which makes its result 1-minimal.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from astreduce.isolate.changes import Change
from astreduce.outcome import Outcome, first_fail

#: How a sweep reads outcomes: an ordered batch of configurations in, their outcomes out, lazily.
Outcomes = Callable[[list[list[Change]]], Iterator[Outcome]]


def first_failing(trials: list[list[Change]], outcomes: Outcomes) -> int | None:
    """The index of the first of ``trials`` that FAILs; the ones after it are never waited for."""
    return first_fail(outcomes(trials))


def trim(changes: list[Change], outcomes: Outcomes, *, grow: bool = False) -> list[Change]:
    """Remove one change at a time, in one sweep, while the rest still FAILs.

    Each kept change was needed when it was tried (against a superset of the
    result), so the result is 1-minimal when the oracle is monotone on these
    configurations; a second sweep would cost as many tests as changes kept.
    The remaining removals go to ``outcomes`` as one ordered batch; the first
    that FAILs is taken and the sweep goes on from there. With ``grow``, a
    second removal in a row at one place tries runs of 2, 4, 8 ... changes
    there (a comment block, a docstring, a helper's body), as shrinkray and
    Hypothesis grow a successful deletion.
    """
    kept = list(changes)
    position = 0
    streak = 0
    while position < len(kept) and len(kept) > 1:
        trials = [kept[:i] + kept[i + 1 :] for i in range(position, len(kept))]
        found = first_failing(trials, outcomes)
        if found is None:
            break
        kept = trials[found]
        streak = streak + 1 if found == 0 else 1
        position += found
        size = 2
        while grow and streak >= 2 and position + size <= len(kept) and len(kept) > size:
            run = kept[:position] + kept[position + size :]
            if first_failing([run], outcomes) is None:
                break
            kept, size = run, size * 2
    return kept


def sweep(changes: list[Change], outcomes: Outcomes) -> list[Change]:
    """:func:`trim` (growing runs) until a sweep removes nothing: then the result is 1-minimal.

    For the finest levels, where many of the changes are needed: ddmin's
    complements of one or two changes, repeated after every success, cost
    several times more there (614 tests against 128 on ``statistics_stdev``'s
    lines). The last sweep tries every single removal against the result itself.
    """
    kept = list(changes)
    while True:
        trimmed = trim(kept, outcomes, grow=True)
        if len(trimmed) == len(kept):
            return kept
        kept = trimmed
