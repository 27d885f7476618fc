"""The three outcomes of a test, shared by dd, oracles and strategies."""

from __future__ import annotations

import enum
from collections.abc import Iterable


class Outcome(enum.Enum):
    """What a test says about a candidate.

    FAIL means the candidate reproduces the target failure: it is
    *interesting*. PASS means no failure. UNRESOLVED means some other failure
    (a syntax error, another exception, a timeout when not looking for a
    hang); delta debugging treats it like PASS, as dd+ does.
    """

    PASS = "PASS"
    FAIL = "FAIL"
    UNRESOLVED = "UNRESOLVED"

    def __str__(self) -> str:
        return self.value


def first_fail(outcomes: Iterable[Outcome]) -> int | None:
    """The index of the first FAIL among lazily produced ``outcomes``; the rest are never asked for.

    A generator of outcomes is closed at once, so tests it started ahead
    (speculation) are cancelled rather than waited for.
    """
    try:
        for index, outcome in enumerate(outcomes):
            if outcome is Outcome.FAIL:
                return index
    finally:
        close = getattr(outcomes, "close", None)
        if close is not None:
            close()
    return None
