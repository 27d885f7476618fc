"""Benchmark ddmin on inputs with k failure-inducing elements among n.

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
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from astreduce.dd import Outcome, dd

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="run only n = 1,000, quickly")
    parser.add_argument("--seed", type=int, default=0, help="seed for the positions (default 0)")
    args = parser.parse_args(argv)
    rows = []
    for n in SMOKE_SIZES if args.smoke else SIZES:
        for k in KS:
            rows.append(measure(n, k, args.seed))
            print(format_table(rows).splitlines()[-1] if len(rows) > 1 else format_table(rows))
            sys.stdout.flush()
    found = problems(rows)
    for problem in found:
        print(f"FAILED: {problem}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
