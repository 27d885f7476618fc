"""``astreduce pytest --match``: what each way of comparing a node's failure costs and keeps.

For every project of ``corpora/pytest/`` that this interpreter can run (its
``requires`` met) and the test suite's ``tests/data/pytest_project``, reduce
the node with ``--match message`` (the whole message, pytest's explanation
included) and ``--match first-line`` (its first line), both with the
same-place check, and print for each: the tokens before and after, tests,
seconds, whether the result fails under plain pytest as the original did
(the node, the exception type, the first line), and the function the result
fails from against the original's. Run by hand, not in CI::

    python bench/pytest_match.py [--jobs 2] [--max-time 300] [CASE ...]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPORA = REPO / "corpora" / "pytest"
SHIPPED = ("pytest_project", REPO / "tests" / "data" / "pytest_project",
           "tests/test_geometry.py::TestPolygonArea::test_square_away_from_the_origin")


def cases(names: list[str]) -> list[tuple[str, Path, str]]:
    found = [SHIPPED]
    for case in sorted(CORPORA.iterdir()):
        toml = case / "case.toml"
        if toml.is_file():
            found.append((case.name, case / "project", str(tomllib.loads(toml.read_text(encoding="utf-8"))["node"])))
    return [c for c in found if not names or c[0] in names]


def first_failure(python: str, project: Path, node: str) -> str:
    """pytest's short summary line for the node (``FAILED node - Type: first line``), or ''."""
    done = subprocess.run(
        [python, "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rf", node], cwd=project, capture_output=True, text=True,
        timeout=600, env={"COLUMNS": "400", "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}, check=False,
    )
    return next((line for line in done.stdout.splitlines() if line.startswith("FAILED")), "")


def reduce(python: str, project: Path, node: str, match: str, jobs: int, max_time: float) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="astreduce-match-") as scratch:
        copy = Path(scratch) / "project"
        shutil.copytree(project, copy)
        out, report = Path(scratch) / "out", Path(scratch) / "r.json"
        started = time.perf_counter()
        done = subprocess.run(
            [python, "-m", "astreduce", "pytest", node, "-o", str(out), "--report", str(report), "--match", match,
             "-j", str(jobs), "--max-time", str(max_time), "-q"],
            cwd=copy, capture_output=True, text=True, timeout=max_time * 3 + 300, check=False,
        )
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            return {"error": done.stderr.strip().splitlines()[-1:] or [f"exit {done.returncode}"]}
        data = json.loads(report.read_text(encoding="utf-8"))
        fails = first_failure(python, out, node)
        return {
            "before": data["input"]["tokens"], "after": data["output"]["tokens"], "tests": data["tests"], "seconds": seconds,
            "fails": fails, "raised": (data["failure"]["raised_at"] or {}).get("function"),
            "original": (data["failure"]["original"] or {}).get("function"), "budget": data["budget_ended"],
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--max-time", type=float, default=300)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    print("| case | match | tokens | tests | seconds | plain pytest on the result | fails from (original) |")
    print("| --- | --- | ---: | ---: | ---: | --- | --- |")
    for name, project, node in cases(args.names):
        original = first_failure(args.python, project, node)
        for match in ("message", "first-line"):
            got = reduce(args.python, project, node, match, args.jobs, args.max_time)
            if "error" in got:
                print(f"| {name} | {match} | error: {got['error']} | | | | |", flush=True)
                continue
            same = "same failure" if got["fails"].split(" - ")[:1] == original.split(" - ")[:1] and got["fails"] else f"OTHER: {got['fails']!r}"
            budget = " (budget)" if got["budget"] else ""
            print(
                f"| {name} | {match} | {got['before']} → {got['after']} | {got['tests']} | {got['seconds']:.0f}{budget} | {same} | "
                f"{got['raised']} ({got['original']}) |",
                flush=True,
            )


if __name__ == "__main__":
    main()
