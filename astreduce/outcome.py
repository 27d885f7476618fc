"""The three outcomes of a test, shared by dd, oracles and strategies."""

from __future__ import annotations

import enum


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
