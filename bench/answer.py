"""Is the result still the bug? ``astreduce pytest`` on a real library's reported bug, checked as a maintainer would.

For each named project of ``corpora/pytest/`` (default: ``dateutil_981``,
python-dateutil 2.8.1 and its issue #981), in a copy of it, this runs
``astreduce pytest NODE -o OUT --report R --bug-report B`` with default
options at ``-j 2`` and a budget (``--max-time``, default 420 s), then prints:

* the tokens before and after, their ratio, the tests and the seconds;
* whether ``OUT`` fails the node under plain pytest with the same exception
  type and message as the original;
* the report's ``failure.raised_at`` (its origin file and function) against
  the original's place;
* whether every line of every result file has an origin entry;
* whether the bug report's command, run as written, shows the failure.

Run by hand, not in CI::

    python bench/answer.py [--max-time 420] [--jobs 2] [CASE ...]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

CORPORA = Path(__file__).resolve().parent.parent / "corpora" / "pytest"
ENV = {"COLUMNS": "400", "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}


def failure_of(python: str, project: Path, node: str) -> str:
    """The exception line pytest's short summary gives for the node ('' when it does not fail)."""
    done = subprocess.run(
        [python, "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rf", node], cwd=project, capture_output=True,
        text=True, timeout=600, env=ENV, check=False,
    )
    line = next((line for line in done.stdout.splitlines() if line.startswith(f"FAILED {node}")), "")
    return line.partition(" - ")[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", default=["dateutil_981"])
    parser.add_argument("--max-time", type=float, default=420)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    for name in args.names:
        node = str(tomllib.loads((CORPORA / name / "case.toml").read_text(encoding="utf-8"))["node"])
        with tempfile.TemporaryDirectory(prefix="astreduce-answer-") as scratch:
            project = Path(scratch) / "project"
            shutil.copytree(CORPORA / name / "project", project)
            out, report_path, bug = Path(scratch) / "out", Path(scratch) / "r.json", Path(scratch) / "bug.md"
            original = failure_of(args.python, project, node)
            started = time.perf_counter()
            done = subprocess.run(
                [args.python, "-m", "astreduce", "pytest", node, "-o", str(out), "--report", str(report_path),
                 "--bug-report", str(bug), "-j", str(args.jobs), "--max-time", str(args.max_time), "-q"],
                cwd=project, capture_output=True, text=True, timeout=args.max_time * 3 + 600, check=False,
            )
            seconds = time.perf_counter() - started
            if done.returncode != 0:
                print(f"{name}: exit {done.returncode}: {done.stderr.strip()[-500:]}")
                continue
            report = json.loads(report_path.read_text(encoding="utf-8"))
            before, after = report["input"]["tokens"], report["output"]["tokens"]
            reduced = failure_of(args.python, out, node)
            raised, place = report["failure"]["raised_at"] or {}, report["failure"]["original"] or {}
            every_line = all(
                len(entries) == len((out / path).read_text(encoding="utf-8").splitlines())
                for path, entries in report["origins"].items()
            )
            command = re.search(r"## Reproduce\n\n```sh\n(.*?)\n```", bug.read_text(encoding="utf-8"), re.S)
            shown = subprocess.run(
                command.group(1) if command else "false", shell=True, cwd=scratch, capture_output=True, text=True, timeout=600,
                check=False,
            )
            print(f"{name}: {before} -> {after} tokens ({after / before:.2%}, at most 1/10: {after * 10 <= before}), "
                  f"{report['tests']} tests, {seconds:.0f} s at -j {args.jobs}"
                  f"{' (the budget ended it)' if report['budget_ended'] else ''}")
            print(f"  plain pytest on OUT: {reduced!r}; the same as the original's: {reduced == original}")
            print(f"  raised at {raised.get('file')}:{raised.get('line')}, from {raised.get('origin_file')}:"
                  f"{raised.get('origin_line')} in {raised.get('function')}; the original fails at {place.get('file')}:"
                  f"{place.get('line')} in {place.get('function')}")
            print(f"  every line has an origin entry: {every_line}; renames {len(report['renames'])}, folds {len(report['folds'])}")
            print(f"  the bug report's command shows the failure: {original.split(':')[0] in shown.stdout + shown.stderr}")
            for path in sorted(report["origins"]):
                print(f"  --- {path}")
                for line in (out / path).read_text(encoding="utf-8").splitlines():
                    print(f"  | {line}")


if __name__ == "__main__":
    main()
