"""What the room costs a test: confined tests against ``--no-confine`` tests, paired in one run.

Every candidate runs in a room of its own (``docs/sandbox.md``). This bench
reduces a corpora case (default stdlib_argparse, one test at a time, as
``-j 1`` does) with an oracle that hands its tests in turn to two exec
oracles built from the same options, one confined and one with
``--no-confine``: test 1 confined, test 2 unconfined, test 3 confined, ...
Each test's wall time runs from its start to its verdict. The machine's
speed drifts by 15-20 % between minutes (and by far more while other work
shares it), so two reductions run one after the other compare badly; here
every confined test has an unconfined neighbour a few milliseconds away,
and the drift cancels. It prints, for each run, the mean and median wall
milliseconds of the confined and of the unconfined tests, their difference
(the room's cost a test), and over every run the median difference::

    python bench/room_cost.py                     # stdlib_argparse, 3 runs
    python bench/room_cost.py --runs 5 --case stdlib_json_decoder
    python bench/room_cost.py --source /tmp/old   # the astreduce of another checkout

The reduction is the one the confined oracle's verdicts drive (both agree
on every candidate of these cases; a disagreement is counted and printed).
Standard library and astreduce only; run by hand.
"""

from __future__ import annotations

import argparse
import importlib.util
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def _load(name: str, path: Path) -> object:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


class Alternating:
    """An oracle whose tests go to two calibrated oracles in turn; each test's wall time is kept by oracle."""

    def __init__(self, confined: object, unconfined: object) -> None:
        self.oracles = [confined, unconfined]
        self.times: list[list[float]] = [[], []]
        self.disagreements = 0
        self.turn = 0

    @property
    def identity(self) -> str:
        return self.oracles[0].identity  # type: ignore[attr-defined, no-any-return]

    @property
    def traits(self) -> object:
        return self.oracles[0].traits  # type: ignore[attr-defined]

    def calibrate(self, text: str) -> object:
        return self.oracles[0].judge(text)  # type: ignore[attr-defined]

    def judge(self, text: str) -> object:
        return self.start(text).wait()

    def start(self, text: str) -> object:
        which = self.turn
        self.turn ^= 1
        return _Timed(self, which, text)

    def close(self) -> None:
        for oracle in self.oracles:
            oracle.close()  # type: ignore[attr-defined]


class _Timed:
    def __init__(self, owner: Alternating, which: int, text: str) -> None:
        self.owner = owner
        self.which = which
        self.started = time.perf_counter()
        self.pending = owner.oracles[which].start(text)  # type: ignore[attr-defined]
        self.done = getattr(self.pending, "done", None)
        self.ready_fds = getattr(self.pending, "ready_fds", None)
        self.verdict: object = None

    def wait(self) -> object:
        if self.verdict is None:
            self.verdict = self.pending.wait()
            self.owner.times[self.which].append(time.perf_counter() - self.started)
        return self.verdict

    def cancel(self) -> None:
        self.pending.cancel()


def run_once(case: object, tools: object) -> tuple[list[float], list[float], int]:
    from astreduce.oracles.options import OracleOptions, Original, build_oracle
    from astreduce.reduce.single import ReduceConfig, reduce_with

    with tempfile.TemporaryDirectory(prefix="room-cost-") as place:
        folder = Path(place)
        tools.materialise(case, folder)  # type: ignore[attr-defined]
        text = (folder / case.input_name).read_text()  # type: ignore[attr-defined]
        args = list(case.args)  # type: ignore[attr-defined]
        expect = args[args.index("--expect") + 1]
        append = (folder / args[args.index("--append") + 1]).read_text() if "--append" in args else ""
        oracles = []
        for confine in (True, False):
            options = OracleOptions(expect=expect, append=append, confine=confine)
            oracles.append(build_oracle(options, Original(text, case.input_name, str(folder))))  # type: ignore[attr-defined]
        alternating = Alternating(*oracles)
        config = ReduceConfig(options=OracleOptions(expect=expect, append=append), jobs=1, format=False,
                              filename=case.input_name, search_path=str(folder))  # type: ignore[attr-defined]
        try:
            reduce_with(text, config, alternating)
        finally:
            alternating.close()
        return alternating.times[0], alternating.times[1], alternating.disagreements


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default="stdlib_argparse")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--source", type=Path, help="the astreduce checkout to run (default: this one)")
    args = parser.parse_args()
    sys.path.insert(0, str((args.source or REPO).resolve()))
    tools = _load("corpora_tools", REPO / "corpora" / "tools.py")
    case = {c.name: c for c in tools.load_cases()}[args.case]  # type: ignore[attr-defined]
    print(f"{'run':>3} {'confined ms':>12} {'median':>7} {'unconfined ms':>14} {'median':>7} {'tests':>6} {'cost ms':>8}")
    costs: list[float] = []
    for run in range(args.runs):
        confined, unconfined, _ = run_once(case, tools)
        cost = 1000 * (statistics.fmean(confined) - statistics.fmean(unconfined))
        costs.append(cost)
        print(f"{run:>3} {1000 * statistics.fmean(confined):>12.2f} {1000 * statistics.median(confined):>7.2f} "
              f"{1000 * statistics.fmean(unconfined):>14.2f} {1000 * statistics.median(unconfined):>7.2f} "
              f"{len(confined) + len(unconfined):>6} {cost:>+8.2f}")
    print(f"\n{args.case}, one test at a time: the room costs {statistics.median(costs):+.2f} ms a test "
          f"(median of {len(costs)} runs' mean differences)")
    print("\ncommand: " + shlex.join(["python", *sys.argv]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
