"""What a test costs under ``astreduce pytest``, against one plain ``python -m pytest NODE`` run.

For every project of ``corpora/pytest/`` (a copy of it, in a temporary
folder) this measures, in the same run:

* ``plain``: one ``python -m pytest NODE`` run, the median of five;
* ``per test``: ``astreduce pytest NODE`` to its fixpoint, its wall-clock
  seconds divided by its tests (calibration, the final plain check and
  astreduce's own work included);
* their ratio, and the reduction's tests and tokens.

``--plain-too`` also reduces each project with ``--no-warm`` (every test a
plain pytest process, as before the warm pytest existed): minutes per case.
Run by hand, not in CI::

    python bench/pytest_speed.py [--jobs 1] [--plain-too] [CASE ...]

Standard library only; astreduce is run as ``PY -m astreduce`` with the
interpreter given by ``--python`` (default: this one).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = None  # type: ignore[assignment]

CORPORA = Path(__file__).resolve().parent.parent / "corpora" / "pytest"
PLAIN_RUNS = 5


def node_of(case: Path) -> str:
    text = (case / "case.toml").read_text(encoding="utf-8")
    if tomllib is not None:
        return str(tomllib.loads(text)["node"])
    return next(line.split("=", 1)[1].strip().strip('"') for line in text.splitlines() if line.startswith("node"))


def plain_seconds(python: str, project: Path, node: str) -> float:
    """The median wall time of a plain ``python -m pytest NODE`` in ``project``."""
    times = []
    for _ in range(PLAIN_RUNS):
        started = time.perf_counter()
        subprocess.run(
            [python, "-m", "pytest", "-p", "no:cacheprovider", node], cwd=project, capture_output=True, timeout=600, check=False
        )
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def reduce(python: str, project: Path, node: str, work: Path, jobs: int, *extra: str) -> dict[str, object]:
    out, report = work / f"out{len(extra)}", work / f"report{len(extra)}.json"
    done = subprocess.run(
        [python, "-m", "astreduce", "pytest", node, "-o", str(out), "--report", str(report), "-q", "-j", str(jobs), *extra],
        cwd=project, capture_output=True, text=True, timeout=7200, check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{project.name}: astreduce exited {done.returncode}: {done.stderr.strip()}")
    result: dict[str, object] = json.loads(report.read_text(encoding="utf-8"))
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="*", help="case names (default: every case)")
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose astreduce and pytest run")
    parser.add_argument("--jobs", type=int, default=1, help="-j for astreduce (default 1: a test's own cost)")
    parser.add_argument("--plain-too", action="store_true", help="also reduce with --no-warm (slow)")
    args = parser.parse_args()
    cases = sorted(p for p in CORPORA.iterdir() if (p / "case.toml").is_file() and (not args.cases or p.name in args.cases))
    print(f"astreduce pytest, -j {args.jobs}, {args.python}")
    header = f"{'case':18} {'plain run':>10} {'per test':>9} {'ratio':>6} {'tests':>6} {'seconds':>8} {'tokens':>13}"
    if args.plain_too:
        header += f" {'plain per test':>15} {'plain seconds':>14}"
    print(header)
    for case in cases:
        node = node_of(case)
        with tempfile.TemporaryDirectory(prefix=f"pytest-speed-{case.name}-") as tmp:
            project = Path(tmp) / "project"
            shutil.copytree(case / "project", project)
            plain = plain_seconds(args.python, project, node)
            warm = reduce(args.python, project, node, Path(tmp), args.jobs)
            tests, seconds = int(warm["tests"]), float(warm["seconds"])  # type: ignore[call-overload]
            per_test = seconds / max(1, tests)
            tokens = f"{warm['input']['tokens']} -> {warm['output']['tokens']}"  # type: ignore[index]
            line = f"{case.name:18} {plain:9.3f}s {per_test:8.3f}s {per_test / plain:6.3f} {tests:6d} {seconds:7.1f}s {tokens:>13}"
            if args.plain_too:
                cold = reduce(args.python, project, node, Path(tmp), args.jobs, "--no-warm")
                cold_seconds = float(cold["seconds"])  # type: ignore[arg-type]
                line += f" {cold_seconds / max(1, int(cold['tests'])):14.3f}s {cold_seconds:13.1f}s"  # type: ignore[call-overload]
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
