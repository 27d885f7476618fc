"""Tests per second of warm pytest tests with selective re-import against a full import, in the same run.

A warm pytest forks a child per test. With selective re-import
(``--selective-import``) it holds the project's modules imported, and a test imports again
only the modules its candidate changed and those that hold their objects;
without it (the default) every test imports the whole project. This
bench judges the same candidates under both, in alternate turns, with this
checkout's oracle, and prints the median milliseconds a test, the tests
per second and their ratio. The candidates are made as a reduction makes
them: a run of ``--run`` tests on one module, then the next module (largest
first), each test that module with one more line cut from its end (so some
break, and every outcome is compared: the two ways must judge every
candidate alike)::

    python bench/selective_import.py --python /venv/with/numpy/bin/python
    python bench/selective_import.py --python ... --project /a/reduced/project --node tests/test_bug.py::test_the_bug

The project defaults to ``corpora/pytest/pint_1658`` (its requirements must
be in ``--python``'s environment). Standard library only here; the oracle
runs in a child process per turn. Run by hand, not in CI.
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

#: What a turn's child runs: the oracle calibrated once, then the candidates timed; their outcomes printed.
CHILD = r"""
import json, sys, time
from pathlib import Path
from astreduce.outcome import Outcome
from astreduce.pytest_node import PytestOracle, read_project

project, node, python, selective, run, modules = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1", int(sys.argv[5]), int(sys.argv[6])
oracle = PytestOracle(read_project(Path(project), node, python=python), jobs=1, selective=selective)
try:
    tree = dict(oracle.project.tree)
    assert oracle.calibrate(tree).outcome is Outcome.FAIL and oracle.warm, "the original must fail warm"
    paths = sorted((p for p in tree if p.endswith(".py") and not p.startswith("tests/")), key=lambda p: (-len(tree[p]), p))[:modules]
    candidates = []
    for path in paths:
        lines = tree[path].splitlines(keepends=True)
        for cut in range(run):
            candidates.append((path, {**tree, path: "".join(lines[:len(lines) - cut]) + "# %d\n" % cut}))
    oracle.judge(tree)
    outcomes = []
    started = time.perf_counter()
    for path, candidate in candidates:
        verdict = oracle.judge(candidate)
        outcomes.append("%s %s" % (verdict.outcome, verdict.run.describe()[:100]))
    seconds = time.perf_counter() - started
    labels = ["%s -%d" % (path, cut) for path in paths for cut in range(run)]
    print(json.dumps({"ms": seconds * 1000 / len(candidates), "outcomes": outcomes, "labels": labels, "notes": oracle.notes}))
finally:
    oracle.close()
"""


def turn(project: Path, node: str, python: str, selective: bool, run: int, modules: int) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONPATH"] = str(REPO)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(project), node, python, "1" if selective else "0", str(run), str(modules)],
        env=env, capture_output=True, text=True, timeout=3600, check=False, cwd=project.parent,
    )
    if done.returncode != 0:
        raise SystemExit(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else str(done.returncode))
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="the interpreter that runs the project's tests")
    parser.add_argument("--project", type=Path, default=REPO / "corpora" / "pytest" / "pint_1658" / "project")
    parser.add_argument("--node", default="tests/test_bug.py::test_the_bug")
    parser.add_argument("--run", type=int, default=12, help="tests on one module before the next")
    parser.add_argument("--modules", type=int, default=8, help="modules (the largest) a turn goes through")
    parser.add_argument("--turns", type=int, default=3, help="turns of each way, alternately")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="selective-import-"))
    try:
        project = work / "project"
        shutil.copytree(args.project, project, ignore=shutil.ignore_patterns("__pycache__"))
        times: dict[str, list[float]] = {"selective": [], "full": []}
        seen: dict[str, list[str]] = {}
        for number in range(args.turns):
            for name in ("full", "selective"):
                result = turn(project, args.node, args.python, name == "selective", args.run, args.modules)
                times[name].append(float(result["ms"]))  # type: ignore[arg-type]
                outcomes = list(result["outcomes"])  # type: ignore[call-overload]
                differ = sum(a.split()[0] != b.split()[0] for a, b in zip(seen.setdefault(name, outcomes), outcomes))
                print(f"turn {number + 1} {name}: {times[name][-1]:.1f} ms a test, {len(outcomes)} tests, "
                      f"{sum(o.startswith('FAIL') for o in outcomes)} FAIL; notes: {result['notes'] or 'none'}", flush=True)
                if differ:
                    print(f"  {differ} outcomes differ from this way's first turn (a flaky test?)")
        labels = list(result["labels"])  # type: ignore[call-overload]
        mismatched = 0
        for label, a, b in zip(labels, seen["selective"], seen["full"]):
            if a.split()[0] != b.split()[0]:
                mismatched += 1
                print(f"  differs: {label}: selective {a}; full import {b}")
        selective, full = statistics.median(times["selective"]), statistics.median(times["full"])
        print(f"median ms a test: selective {selective:.1f}, full import {full:.1f}; selective / full {selective / full:.2f}; "
              f"tests per second {1000 / selective:.2f} against {1000 / full:.2f}; outcomes that differ: {mismatched} "
              f"(load {os.getloadavg()[0]:.2f})")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
