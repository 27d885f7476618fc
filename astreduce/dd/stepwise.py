"""General dd one test at a time, in the order of the 2002 paper (the DeltaDebugger's order).

:func:`astreduce.dd.dd` asks for a whole round of candidates at once (all
complements, then all subsets) so that a scheduler can run them in
parallel. The :class:`~astreduce.debugger.DeltaDebugger` calls a Python
function in its own process, where there is nothing to run in parallel, and
its users compare its results, test by test, with the literature's
DeltaDebugger chapter. So it uses this search, which tests one candidate at
a time in that order:

* the empty input first, then the full one; an empty input that FAILs is
  the minimal failing input (mode ``-``) or an error (modes with ``+``); an
  UNRESOLVED empty input is accepted as the passing start, as in the
  chapter, since dd only needs it to be "not failing";
* Δ = c_fail − c_pass is cut into ``n`` parts, the first ``len(Δ) mod n``
  one element longer than the rest. Configurations are Python sets of
  indices and Δ is cut in the set's own iteration order, as the chapter's
  code does: for small ints that order is sorted until set operations leave
  collisions in a smaller table, and it is the same on every run (ints hash
  to themselves), so each test is the chapter's test; the parts are visited starting at the
  one that last gave a reduction (``offset``), and for each part in turn:
  its subset FAILs (only at n = 2) → c_fail, n = 2; its complement PASSes
  (only at n = 2) → c_pass, n = 2; its complement FAILs → c_fail,
  n = max(n − 1, 2); its subset PASSes → c_pass, n = max(n − 1, 2);
* with no move, ``n`` doubles up to |Δ|, and the search ends when it cannot.

The test function is called directly: caching and counting belong to the
caller. ``observe`` receives the search's steps, for a trace.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from astreduce.dd.algorithm import DDResult, Mode
from astreduce.dd.runner import Config, TestFunction, as_outcome, configured
from astreduce.errors import DDPreconditionError
from astreduce.outcome import Outcome

T = TypeVar("T")

#: ``observe(step, passing, failing, n)``: ``step`` is ``"round"`` before each
#: round, or the move made: ``"reduce to subset"``, ``"increase to subset"``,
#: ``"reduce to complement"``, ``"increase to complement"``, ``"no reduction
#: found"``, ``"increase granularity"``.
Observer = Callable[[str, Sequence[T], Sequence[T], int], None]


def split_evenly(delta: Config, n: int) -> list[Config]:
    """``delta`` in ``n`` contiguous parts; the first ``len(delta) % n`` are one longer."""
    size, longer = divmod(len(delta), n)
    return [
        delta[i * size + min(i, longer) : (i + 1) * size + min(i + 1, longer)] for i in range(n)
    ]


def dd_stepwise(
    elements: Sequence[T],
    test: TestFunction[T],
    mode: Mode = "-",
    *,
    observe: Observer[T] | None = None,
) -> DDResult[T]:
    """General delta debugging over ``elements``, one test at a time (see the module).

    Raises:
        DDPreconditionError: the empty input FAILs in a mode that maximises,
            or the full input PASSes in a mode that minimises.
    """
    minimise = "-" in mode
    maximise = "+" in mode
    tests = 0

    def value(config: set[int]) -> Sequence[T]:
        return configured(elements, tuple(sorted(config)))

    def outcome(config: set[int]) -> Outcome:
        nonlocal tests
        tests += 1
        return as_outcome(test(value(config)))

    def result(c_pass: set[int], c_fail: set[int]) -> DDResult[T]:
        return DDResult(
            mode=mode,
            passing=value(c_pass),
            failing=value(c_fail),
            difference=value(c_fail - c_pass),
            tests=tests,
            cache_hits=0,
        )

    c_pass: set[int] = set()
    c_fail: set[int] = set(range(len(elements)))
    if outcome(c_pass) is Outcome.FAIL:
        if maximise:
            raise DDPreconditionError(
                f"the empty input {value(c_pass)!r} fails; maximising needs it not to"
            )
        return result(c_pass, c_pass)
    if outcome(c_fail) is Outcome.PASS:
        if minimise:
            raise DDPreconditionError("the full input passes; minimising needs it to fail")
        return result(c_fail, c_fail)

    def note(step: str) -> None:
        if observe is not None:
            observe(step, value(c_pass), value(c_fail), n)

    n = 2
    offset = 0
    while True:
        note("round")
        delta = c_fail - c_pass
        if len(delta) < n:
            return result(c_pass, c_fail)
        parts = [set(part) for part in split_evenly(tuple(delta), n)]
        move = None
        for j in range(n):
            i = (j + offset) % n
            grown = c_pass | parts[i]
            shrunk = c_fail - parts[i]
            if minimise and n == 2 and outcome(grown) is Outcome.FAIL:
                c_fail, move = grown, "reduce to subset"
            elif maximise and n == 2 and outcome(shrunk) is Outcome.PASS:
                c_pass, move = shrunk, "increase to subset"
            elif minimise and outcome(shrunk) is Outcome.FAIL:
                c_fail, n, move = shrunk, max(n - 1, 2), "reduce to complement"
            elif maximise and outcome(grown) is Outcome.PASS:
                c_pass, n, move = grown, max(n - 1, 2), "increase to complement"
            if move is not None:
                offset = i
                note(move)
                break
        if move is None:
            note("no reduction found")
            if n >= len(delta):
                return result(c_pass, c_fail)
            note("increase granularity")
            n = min(2 * n, len(delta))
