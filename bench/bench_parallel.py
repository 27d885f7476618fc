"""Parallel tests and oracle throughput (issue 4), run by hand on a quiet machine.

    python bench/bench_parallel.py [--smoke] [--cases a,b] [--pairs N]

1. ``-j 1`` against ``-j N`` (N = the number of cores), in ``--pairs`` pairs
   of runs (the order alternating), on cases whose oracle
   is a subprocess: a made-up crash (``--run '{python} {file}' --signal SEGV``,
   30 helper functions) and real corpora crash cases (``--cases``; by
   default ``crash_cpython312_classcomp_systemerror``, calendar.py under
   3.12.1's ``py_compile``, and ``crash_black208b1_unstable``, black 20.8b1
   on a large module; a case whose interpreter or tool cannot be installed
   is skipped): wall time, tests, candidates cancelled, speed-up per pair,
   its median and lowest, and whether all outputs are identical (they must be).
   Beside each pair, what the machine itself gains: the oracle on the result
   20 times, one at a time against N at a time (on this 2-core virtual
   machine even that gains 1.6x to 2.15x for black, not a steady 2x).
2. Tests per second of the exec oracle (a forked child) against
   ``--run 'python3 {file}'`` (a new interpreter per test) on the same
   100-line candidate.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

from astreduce.cli.options import oracle_options, options_from
from astreduce.oracles import Target
from astreduce.oracles.options import OracleOptions, Original, build_oracle
from astreduce.oracles.command import CommandOracle
from astreduce.oracles.execution import ExecOracle


def crash_program(helpers: int) -> str:
    body = "".join(
        f"def helper_{i}(values):\n    total = 0\n    for v in values:\n        total += v * {i}\n    return total\n\n"
        for i in range(helpers)
    )
    return body + "import os, signal\nlimit = helper_3([1, 2, 3])\nif limit > 10:\n    os.kill(os.getpid(), signal.SIGSEGV)\n"


REAL_CASES = ("crash_cpython312_classcomp_systemerror", "crash_black208b1_unstable")


def reduce_with(jobs: int, program: Path, oracle: list[str], output: Path) -> tuple[float, dict[str, object]]:
    started = time.monotonic()
    report = output.with_suffix(".json")
    subprocess.run(
        [sys.executable, "-m", "astreduce", "reduce", str(program), *oracle,
         "-j", str(jobs), "-o", str(output), "--report", str(report), "-q", "--no-format"],
        check=True, stdout=subprocess.DEVNULL,
    )
    return time.monotonic() - started, json.loads(report.read_text())


def real_case(name: str, folder: Path) -> tuple[Path, list[str]] | None:
    """A corpora crash case, built here; None when its Python or tool cannot be installed."""
    spec = importlib.util.spec_from_file_location("crash_tools", Path(__file__).parent.parent / "corpora" / "crash_tools.py")
    assert spec is not None and spec.loader is not None
    tools = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = tools
    spec.loader.exec_module(tools)
    case = next(c for c in tools.load_crash_cases() if c.name == name)
    try:
        program = tools.materialise(case, folder / name)
        return program, tools.resolve_args(case, tools.prepare_tool(case, tools.tools_dir_default()))
    except Exception as error:  # no such Python or package here: the other cases still run
        print(f"{name}: skipped ({error})")
        return None


def compare_jobs(name: str, program: Path, oracle: list[str], cores: int, pairs: int, runs: int) -> bool:
    """``pairs`` pairs of runs, ``-j 1`` first in odd pairs and last in even ones: this
    machine's speed drifts by up to 20% between minutes, so one pair can mislead.

    After each pair, what the machine itself gains: the oracle on the result
    ``runs`` times, one test at a time against ``cores`` at a time, as a
    scheduler that never guesses wrong and never waits would run them.
    """
    outputs: set[str] = set()
    ratios: list[float] = []
    alone: list[float] = []
    for pair in range(pairs):
        times: dict[int, float] = {}
        reports: dict[int, dict[str, object]] = {}
        for jobs in (1, cores) if pair % 2 == 0 else (cores, 1):
            output = program.with_name(f"{program.stem}.j{jobs}.py")
            times[jobs], reports[jobs] = reduce_with(jobs, program, oracle, output)
            outputs.add(output.read_text())
        ratios.append(times[1] / times[cores])
        alone.append(oracle_alone(program, oracle, output.read_text(), runs, cores))
        print(f"{name}: {reports[1]['tests']} tests (-j {cores}: {reports[cores]['tests']}); "
              f"-j 1 {times[1]:.1f} s, -j {cores} {times[cores]:.1f} s "
              f"({reports[cores]['speculative']} candidates started ahead and cancelled), "
              f"speed-up {ratios[-1]:.2f}x; the same test {runs} times, {cores} at a time: {alone[-1]:.2f}x", flush=True)
    print(f"{name}: speed-up over {pairs} pair(s): median {statistics.median(ratios):.2f}x, "
          f"lowest {min(ratios):.2f}x; the same test {cores} at a time: median {statistics.median(alone):.2f}x, "
          f"lowest {min(alone):.2f}x; identical output: {len(outputs) == 1}", flush=True)
    return len(outputs) == 1


@click.command()
@oracle_options
def _oracle_options(**values: object) -> OracleOptions:
    return options_from(values)


def oracle_alone(program: Path, oracle_args: list[str], text: str, runs: int, cores: int) -> float:
    """The same test ``runs`` times one at a time, against ``cores`` at a time: the speed-up ``-j`` could reach."""
    options = _oracle_options.main(oracle_args, standalone_mode=False)
    oracle = build_oracle(options, Original(text, program.name))
    try:
        started = time.monotonic()
        for _ in range(runs):
            oracle.judge(text)
        one = time.monotonic() - started
        started = time.monotonic()
        for _ in range(runs // cores):
            for pending in [oracle.start(text) for _ in range(cores)]:
                pending.wait()
        return one / (time.monotonic() - started)
    finally:
        close = getattr(oracle, "close", None)
        if callable(close):
            close()


def throughput(judge: object, text: str, seconds: float) -> float:
    count = 0
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        judge(text)  # type: ignore[operator]
        count += 1
    return count / (time.monotonic() - started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="a small, quick run (the made-up crash only)")
    parser.add_argument("--cases", default=",".join(REAL_CASES), help="corpora crash cases to run, comma-separated")
    parser.add_argument("--pairs", type=int, default=3, help="pairs of -j 1 and -j N runs per case (default: 3; --smoke: 1)")
    args = parser.parse_args()
    cores = os.cpu_count() or 2
    helpers = 6 if args.smoke else 30
    pairs = 1 if args.smoke else args.pairs
    runs = 6 if args.smoke else 20
    with tempfile.TemporaryDirectory() as folder:
        program = Path(folder) / "crash.py"
        program.write_text(crash_program(helpers))
        same = compare_jobs(f"made-up crash, {helpers} helpers", program, ["--run", "{python} {file}", "--signal", "SEGV"], cores, pairs, runs)
        for name in [] if args.smoke else [c for c in args.cases.split(",") if c]:
            real = real_case(name, Path(folder))
            if real is not None:
                same = compare_jobs(name, *real, cores, pairs, runs) and same

    candidate = "".join(f"value_{i} = {i} * 2\n" for i in range(99)) + "assert value_3 == 7, 'My Test'\n"
    exec_oracle = ExecOracle(Target.parse("AssertionError:My Test"))
    exec_oracle.calibrate(candidate)
    command = CommandOracle(["python3 {file}"], "candidate.py")
    command.calibrate(candidate)
    seconds = 2.0 if args.smoke else 10.0
    forked = throughput(exec_oracle.judge, candidate, seconds)
    spawned = throughput(command.judge, candidate, seconds)
    print(f"100-line candidate: exec oracle {forked:.0f} tests/s, --run 'python3 {{file}}' {spawned:.0f} tests/s, "
          f"ratio {forked / spawned:.1f}x")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
