"""Benchmark ddmin, and CDD, WDD and ProbDD against it, on inputs with k failure-inducing elements among n.

Run by hand from the repository root::

    python bench/bench_dd.py            # n = 1,000 / 10,000 / 100,000; k = 1, 2, 8
    python bench/bench_dd.py --smoke    # n = 1,000 only, a second or so

For each (n, k) the k failure-inducing elements sit at seeded random
positions and the test FAILs iff a candidate contains all of them. The table
gives ddmin's tests, the total seconds, and the algorithm's own seconds
(total minus the time spent inside the test function; building candidates
counts as the algorithm's), next to the information-theoretic lower bound
log2(C(n, k)): no strategy that learns one bit per test can need fewer tests.

The exit status is 1 if, for k = 1, ddmin needs more than 2·log2(n) + 4
tests, or if the algorithm's own time at n = 100,000, k = 1 is 1 s or more
(the targets of issue 2); otherwise 0.

A second table (issue 16) runs each minimiser of :mod:`astreduce.dd.minimise`
on the same cases and on cases where much is needed (k = n/10 and n/4 of
n = 1,000; in the smoke run n = 200 only), where every minimiser returns
the same k elements, so tests compare at equal result sizes. CDD runs with
the paper's prior p0 = 0.1 and with p0 = 1/n. It prints the tests saved
against ddmin, in total over the cases, beside the published 84% (CDD vs
ddmin over 76 benchmarks, Zhang et al., ICSE 2025). A weighted case (heavy
elements, some needed) compares ddmin with weighted ddmin (WDD) by tests and
by the weight of what is kept. These tables inform; they do not decide the
exit status.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from astreduce.dd import Outcome, cdd_search, dd, minimise
from astreduce.dd.algorithm import DDResult

SIZES = (1_000, 10_000, 100_000)
SMOKE_SIZES = (1_000,)
KS = (1, 2, 8)
OWN_TIME_LIMIT = 1.0  # seconds, at n = 100,000 and k = 1


@dataclass(frozen=True)
class Row:
    n: int
    k: int
    tests: int
    seconds: float
    own_seconds: float
    lower_bound: float
    is_correct: bool

    @property
    def test_limit(self) -> float:
        return 2 * math.log2(self.n) + 4


def log2_binomial(n: int, k: int) -> float:
    """log2 of C(n, k), without building the huge integer."""
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)) / math.log(2)


def measure(n: int, k: int, seed: int) -> Row:
    rng = random.Random(f"{seed}-{n}-{k}")
    required = frozenset(rng.sample(range(n), k))
    test_seconds = 0.0

    def test(candidate: Sequence[int]) -> Outcome:
        nonlocal test_seconds
        start = time.perf_counter()
        outcome = Outcome.FAIL if required.issubset(candidate) else Outcome.PASS
        test_seconds += time.perf_counter() - start
        return outcome

    start = time.perf_counter()
    result = dd(list(range(n)), test)
    seconds = time.perf_counter() - start
    return Row(
        n=n,
        k=k,
        tests=result.tests,
        seconds=seconds,
        own_seconds=seconds - test_seconds,
        lower_bound=log2_binomial(n, k),
        is_correct=list(result.failing) == sorted(required),
    )


def format_table(rows: list[Row]) -> str:
    header = (
        f"{'n':>8} {'k':>2} {'tests':>6} {'log2 C(n,k)':>11} {'seconds':>8} {'own s':>8}"
        f"  {'within 2·log2(n)+4':<18}"
    )
    lines = [header, "-" * len(header)]
    for row in rows:
        within = (
            f"{'yes' if row.tests <= row.test_limit else 'NO'} (≤ {row.test_limit:.1f})"
            if row.k == 1
            else "-"
        )
        lines.append(
            f"{row.n:>8,} {row.k:>2} {row.tests:>6} {row.lower_bound:>11.1f}"
            f" {row.seconds:>8.3f} {row.own_seconds:>8.3f}  {within:<18}"
            + ("" if row.is_correct else "  WRONG RESULT")
        )
    return "\n".join(lines)


def problems(rows: list[Row]) -> list[str]:
    found = []
    for row in rows:
        if not row.is_correct:
            found.append(f"n={row.n}, k={row.k}: ddmin did not return the k elements")
        if row.k == 1 and row.tests > row.test_limit:
            found.append(
                f"n={row.n}, k=1: {row.tests} tests, more than 2·log2(n)+4 = {row.test_limit:.1f}"
            )
        if row.n == 100_000 and row.k == 1 and row.own_seconds >= OWN_TIME_LIMIT:
            found.append(
                f"n=100,000, k=1: the algorithm's own time is {row.own_seconds:.2f} s,"
                f" not under {OWN_TIME_LIMIT:.0f} s"
            )
    return found


#: The published saving of CDD over ddmin in tests (Zhang et al., ICSE 2025, 76 benchmarks).
PUBLISHED_CDD_SAVING = 0.84
#: Cases where much of the input is needed: (n, k).
DENSE = ((1_000, 100), (1_000, 250))
SMOKE_DENSE = ((200, 20), (200, 50))
#: Beyond this n, the minimisers that start with subsets of about ten (1/p0) are not run: n/10 tests each.
SMALL_SUBSETS_LIMIT = 10_000


def minimisers(n: int) -> list[tuple[str, Callable[[list[int], Callable[[Sequence[int]], Outcome]], DDResult[int]]]]:
    """(label, run) of every minimiser measured on an input of size ``n``."""
    runs: list[tuple[str, Callable[[list[int], Callable[[Sequence[int]], Outcome]], DDResult[int]]]] = [
        ("ddmin", lambda e, t: minimise(e, t, "ddmin")),
        ("cdd 1/n", lambda e, t: cdd_search(e, t, p0=1 / max(2, len(e)))),
    ]
    if n <= SMALL_SUBSETS_LIMIT:
        runs += [
            ("cdd", lambda e, t: minimise(e, t, "cdd")),
            ("probdd", lambda e, t: minimise(e, t, "probdd")),
        ]
    return runs


def compare_minimisers(cases: Sequence[tuple[int, int]], seed: int) -> dict[str, dict[tuple[int, int], int]]:
    """Tests of each minimiser per case; raises if one returns other than the k elements."""
    table: dict[str, dict[tuple[int, int], int]] = {}
    for n, k in cases:
        rng = random.Random(f"{seed}-{n}-{k}")
        required = frozenset(rng.sample(range(n), k))

        def test(candidate: Sequence[int], required: frozenset[int] = required) -> Outcome:
            return Outcome.FAIL if required.issubset(candidate) else Outcome.PASS

        for label, run in minimisers(n):
            result = run(list(range(n)), test)
            if sorted(result.failing) != sorted(required):
                raise AssertionError(f"{label} on n={n}, k={k} did not return the k elements")
            table.setdefault(label, {})[(n, k)] = result.tests
    return table


def format_comparison(table: dict[str, dict[tuple[int, int], int]]) -> str:
    cases = list(table["ddmin"])
    labels = list(table)
    header = f"{'n':>8} {'k':>4} " + " ".join(f"{label:>9}" for label in labels)
    lines = [header, "-" * len(header)]
    for case in cases:
        cells = " ".join(f"{table[label][case]:>9}" if case in table[label] else f"{'-':>9}" for label in labels)
        lines.append(f"{case[0]:>8,} {case[1]:>4} {cells}")
    lines.append("")
    for label in labels[1:]:
        shared = [c for c in cases if c in table[label]]
        ours = sum(table[label][c] for c in shared)
        theirs = sum(table["ddmin"][c] for c in shared)
        ratio = math.exp(sum(math.log(table[label][c] / table["ddmin"][c]) for c in shared) / len(shared))
        lines.append(
            f"{label:>9} vs ddmin over {len(shared)} cases: {1 - ours / theirs:.0%} fewer tests in total,"
            f" {ratio:.2f} times ddmin's per case (geometric mean); published, CDD vs ddmin:"
            f" {PUBLISHED_CDD_SAVING:.0%} fewer"
        )
    return "\n".join(lines)


def weighted_case(n: int, seed: int) -> str:
    """ddmin against weighted ddmin (WDD) where a few elements are heavy and some of those are needed."""
    rng = random.Random(f"weighted-{seed}-{n}")
    weights = [float(rng.choice((1, 1, 1, 2, 3)) if rng.random() > 0.05 else rng.randint(50, 200)) for _ in range(n)]
    heavy = [i for i, w in enumerate(weights) if w >= 50]
    required = frozenset(rng.sample(heavy, max(1, len(heavy) // 3)) + rng.sample(range(n), max(1, n // 50)))

    def test(candidate: Sequence[int]) -> Outcome:
        return Outcome.FAIL if required.issubset(candidate) else Outcome.PASS

    rows = []
    for label, algorithm in (("ddmin", "ddmin"), ("wddmin", "wddmin"), ("cdd", "cdd"), ("w-cdd", "cdd")):
        uses = algorithm == "wddmin" or label == "w-cdd"
        result = minimise(list(range(n)), test, algorithm, weights=weights if uses else None)
        kept = sum(weights[i] for i in result.failing)
        rows.append(f"{label:>7}: {result.tests:>6} tests, kept weight {kept:,.0f} of {sum(weights):,.0f}")
    return f"weighted, n = {n:,}, {len(required)} needed ({len(heavy)} heavy elements):\n" + "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="run only n = 1,000, quickly")
    parser.add_argument("--seed", type=int, default=0, help="seed for the positions (default 0)")
    args = parser.parse_args(argv)
    rows = []
    sizes = SMOKE_SIZES if args.smoke else SIZES
    for n in sizes:
        for k in KS:
            rows.append(measure(n, k, args.seed))
            print(format_table(rows).splitlines()[-1] if len(rows) > 1 else format_table(rows))
            sys.stdout.flush()
    print()
    cases = [(n, k) for n in sizes for k in KS] + list(SMOKE_DENSE if args.smoke else DENSE)
    print(format_comparison(compare_minimisers(cases, args.seed)))
    print()
    print(weighted_case(200 if args.smoke else 1_000, args.seed))
    found = problems(rows)
    for problem in found:
        print(f"FAILED: {problem}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
