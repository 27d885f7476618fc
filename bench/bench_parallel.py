"""Parallel tests and oracle throughput (issue 4), run by hand on a quiet machine.

    python bench/bench_parallel.py [--smoke]

1. ``-j 1`` against ``-j N`` (N = the number of cores) on a case whose oracle
   is a subprocess (``--run '{python} {file}' --signal SEGV``): wall time,
   speed-up, and whether the outputs are identical (they must be).
2. Tests per second of the exec oracle (a forked child) against
   ``--run 'python3 {file}'`` (a new interpreter per test) on the same
   100-line candidate.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from astreduce.oracles import Target
from astreduce.oracles.command import CommandOracle
from astreduce.oracles.execution import ExecOracle


def crash_program(helpers: int) -> str:
    body = "".join(
        f"def helper_{i}(values):\n    total = 0\n    for v in values:\n        total += v * {i}\n    return total\n\n"
        for i in range(helpers)
    )
    return body + "import os, signal\nlimit = helper_3([1, 2, 3])\nif limit > 10:\n    os.kill(os.getpid(), signal.SIGSEGV)\n"


def reduce_with(jobs: int, program: Path, output: Path) -> float:
    started = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "astreduce", "reduce", str(program), "--run", "{python} {file}", "--signal", "SEGV",
         "-j", str(jobs), "-o", str(output), "-q", "--no-format"],
        check=True, stdout=subprocess.DEVNULL,
    )
    return time.monotonic() - started


def throughput(judge: object, text: str, seconds: float) -> float:
    count = 0
    started = time.monotonic()
    while time.monotonic() - started < seconds:
        judge(text)  # type: ignore[operator]
        count += 1
    return count / (time.monotonic() - started)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="a small, quick run")
    args = parser.parse_args()
    cores = os.cpu_count() or 2
    helpers = 6 if args.smoke else 30
    with tempfile.TemporaryDirectory() as folder:
        program = Path(folder) / "crash.py"
        program.write_text(crash_program(helpers))
        one = reduce_with(1, program, Path(folder) / "one.py")
        many = reduce_with(cores, program, Path(folder) / "many.py")
        same = (Path(folder) / "one.py").read_text() == (Path(folder) / "many.py").read_text()
    print(f"subprocess oracle, {helpers} helpers: -j 1 {one:.1f} s, -j {cores} {many:.1f} s, "
          f"speed-up {one / many:.2f}x, identical output: {same}")

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
