"""Tests per second of ``astreduce pytest``'s warm tests, this checkout against another, in the same run.

Each warm pytest (a zygote) forks a child per test, which imports the
project's modules under reduction afresh. This bench judges the same
candidates (each one module of the project with a comment added, as a
reduction's candidates change a file or two of the tree) with the oracle of
two source folders, in turns of ``--tests`` tests each, and prints the
median milliseconds a test and their ratio: how much a change to the warm
path (here, the zygote's code compiled once per text) buys::

    python bench/warm_compiled.py --other /path/to/older/checkout --python /venv/with/numpy/bin/python
    python bench/warm_compiled.py --other ... --project /a/reduced/project --node tests/test_bug.py::test_the_bug

The project defaults to ``corpora/pytest/pint_1658`` (its requirements must
be in ``--python``'s environment). Every candidate must end as the original
does (FAIL), or the bench stops. Standard library only here; the oracle runs
in a child process per checkout. Run by hand, not in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

#: What a checkout's child runs: the oracle calibrated once, then ``tests`` candidates timed, in turns.
CHILD = r"""
import json, sys, time
from pathlib import Path
from astreduce.outcome import Outcome
from astreduce.pytest_node import PytestOracle, read_project

project, node, python, tests, turn = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
import astreduce
assert astreduce.__file__.startswith(sys.argv[6] + "/"), f"imported {astreduce.__file__}, not {sys.argv[6]}'s"
oracle = PytestOracle(read_project(Path(project), node, python=python), jobs=1)
try:
    tree = dict(oracle.project.tree)
    assert oracle.calibrate(tree).outcome is Outcome.FAIL and oracle.warm, "the original must fail warm"
    modules = sorted(p for p in tree if p.endswith(".py") and not p.startswith("tests/"))
    oracle.judge(tree)  # the zygote is ready
    started = time.perf_counter()
    for number in range(tests):
        path = modules[number % len(modules)]
        verdict = oracle.judge({**tree, path: tree[path] + f"# {turn} {number}\n"})
        assert verdict.outcome is Outcome.FAIL, (path, verdict)
    print(json.dumps((time.perf_counter() - started) * 1000 / tests))
finally:
    oracle.close()
"""


def per_test(checkout: Path, project: Path, node: str, python: str, tests: int, turn: int) -> float:
    """The milliseconds a test under ``checkout``'s oracle. Run from the project's parent folder: ``python -c``
    puts the working directory first on the path, and from a checkout's own folder both turns would import it."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONPATH"] = str(checkout)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(project), node, python, str(tests), str(turn), str(checkout.resolve())],
        env=env, capture_output=True, text=True, timeout=1800, check=False, cwd=project.parent,
    )
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}")
    return float(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--other", type=Path, required=True, help="the source folder to compare with")
    parser.add_argument("--python", default=sys.executable, help="the interpreter that runs the project's tests")
    parser.add_argument("--project", type=Path, default=REPO / "corpora" / "pytest" / "pint_1658" / "project")
    parser.add_argument("--node", default="tests/test_bug.py::test_the_bug")
    parser.add_argument("--tests", type=int, default=60, help="tests per turn")
    parser.add_argument("--turns", type=int, default=3, help="turns of each checkout, alternately")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="warm-compiled-"))
    try:
        project = work / "project"
        shutil.copytree(args.project, project, ignore=shutil.ignore_patterns("__pycache__"))
        times: dict[str, list[float]] = {"this": [], "other": []}
        for turn in range(args.turns):
            for name, checkout in (("other", args.other), ("this", REPO)):
                times[name].append(per_test(checkout, project, args.node, args.python, args.tests, turn))
                print(f"turn {turn + 1} {name}: {times[name][-1]:.1f} ms a test", flush=True)
        this, other = statistics.median(times["this"]), statistics.median(times["other"])
        print(f"median ms a test: this {this:.1f}, other {other:.1f}; this / other {this / other:.2f}; "
              f"tests per second {1000 / this:.2f} against {1000 / other:.2f} (load {os.getloadavg()[0]:.2f})")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
