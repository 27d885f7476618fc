"""``astreduce isolate`` on real release pairs: changed lines, the cause, the patch, tests, seconds.

Usage (run by hand, not in CI; it downloads two wheels per pair from PyPI the first time)::

    python bench/isolate_pairs.py [PAIR ...] [-j 2] [--node] [--wheels DIR] [--work DIR]

For each pair of ``corpora/isolate/releases`` (all by default), laid out by
its ``fetch.py``: ``astreduce isolate old new --test check.sh -j J`` (and,
with ``--node``, ``--node test_regression.py::TEST`` too), timed from the
command's start to its end. Each patch is then applied to a fresh copy of
OLD with ``patch -p1`` and the check run on it (it must fail as NEW does),
and its changed lines are set beside the upstream cause's
(``cause_on_old.diff``): the bar is at most twice as many. The rows go to
stdout as the Markdown table of docs/isolate.md, and with the load average
and the machine's cores to ``WORK/results.json``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RELEASES = REPO / "corpora" / "isolate" / "releases"

#: Seconds a run may take (then it counts as a miss: the bar is 180 s).
TIMEOUT = 900


def _fetch_module() -> ModuleType:
    """``corpora/isolate/releases/fetch.py``, imported by path (``corpora`` is data, not a package)."""
    spec = importlib.util.spec_from_file_location("isolate_fetch", RELEASES / "fetch.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def diff_lines(diff: str) -> int:
    """The ``+``/``-`` lines of a unified diff, headers left out."""
    return sum(1 for line in diff.splitlines() if line[:1] in "+-" and not line.startswith(("+++ ", "--- ")))


def diff_n(old: Path, new: Path) -> int:
    """Every ``+``/``-`` line of ``diff -r -u -N old new`` (blank lines included): the issue's measure."""
    done = subprocess.run(["diff", "-r", "-u", "-N", str(old), str(new)], capture_output=True, text=True, check=False)
    return diff_lines(done.stdout)


def fails_on_old(folder: Path, patch: str) -> bool:
    """OLD + ``patch`` (``patch -p1`` in a fresh copy of OLD) fails as NEW does (``check.sh`` exits 0)."""
    copy = folder / "patched"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(folder / "old", copy)
    applied = subprocess.run(["patch", "-p1", "--batch", "--silent", "-d", str(copy)], input=patch, text=True, check=False)
    if applied.returncode != 0:
        return False
    return subprocess.run([str(folder / "check.sh"), str(copy)], check=False).returncode == 0


def run(folder: Path, oracle: list[str], jobs: int, tag: str) -> dict[str, Any]:
    """One ``astreduce isolate`` on the pair in ``folder``; its figures."""
    out = folder / f"{tag}.diff"
    report = folder / f"{tag}.json"
    command = [
        "timeout", str(TIMEOUT), sys.executable, "-m", "astreduce", "isolate", str(folder / "old"), str(folder / "new"), *oracle,
        "-j", str(jobs), "-o", str(out), "--report", str(report), "-q",
    ]
    load = os.getloadavg()[0]
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - started
    if done.returncode != 0:
        return {"tag": tag, "exit": done.returncode, "stderr": done.stderr[-2000:], "seconds": round(seconds, 1)}
    data = json.loads(report.read_text(encoding="utf-8"))
    patch = out.read_text(encoding="utf-8")
    return {
        "tag": tag,
        "exit": 0,
        "seconds": round(seconds, 1),
        "tests": data["tests"],
        "patch_lines": data["isolated"]["lines"],
        "hunks": data["isolated"]["hunks"],
        "unrefined": data["isolated"]["unrefined"]["lines"],
        "summary": data["summary"],
        "fails_on_old": fails_on_old(folder, patch),
        "patch": patch,
        "load_before": round(load, 2),
        "load_after": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    fetch = _fetch_module()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pairs", nargs="*", default=list(fetch.PAIRS), help="pairs (default: all)")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--node", action="store_true", help="also run with --node and compare the patches")
    parser.add_argument("--wheels", type=Path, help="look for the wheel files here first (fetch.py --wheels)")
    parser.add_argument("--work", type=Path, default=REPO / "bench" / "out" / "isolate")
    args = parser.parse_args()
    rows = []
    for name in args.pairs:
        folder = args.work / name
        pair = fetch.lay_out(name, folder, args.wheels)
        cause = diff_lines((RELEASES / name / "cause_on_old.diff").read_text(encoding="utf-8"))
        files = sum(1 for _ in (folder / "new").rglob("*") if _.is_file())
        row: dict[str, Any] = {
            "pair": name, "files": files, "changed": diff_n(folder / "old", folder / "new"), "cause": cause,
            "runs": [run(folder, ["--test", str(folder / "check.sh")], args.jobs, "test")],
        }
        if args.node:
            node = f"{folder / 'test_regression.py'}::{pair.test}"
            row["runs"].append(run(folder, ["--node", node], args.jobs, "node"))
            row["same_patch"] = len({r.get("patch") for r in row["runs"]}) == 1
        rows.append(row)
        print(json.dumps({k: v for k, v in row.items() if k != "runs"}), file=sys.stderr)
        for one in row["runs"]:
            print(json.dumps({k: v for k, v in one.items() if k != "patch"}), file=sys.stderr)
    results = {"jobs": args.jobs, "cores": os.cpu_count(), "python": sys.version.split()[0], "rows": rows}
    args.work.mkdir(parents=True, exist_ok=True)
    (args.work / "results.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    print("| pair | files (NEW) | changed lines | cause | oracle | patch lines (hunks) | ≤ 2× cause | fails on OLD | tests | seconds | load |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in rows:
        for one in row["runs"]:
            if one["exit"] != 0:
                print(f"| {row['pair']} | {row['files']} | {row['changed']:,} | {row['cause']} | {one['tag']} | exit {one['exit']} | | | | {one['seconds']} | |")
                continue
            within = "yes" if one["patch_lines"] <= 2 * row["cause"] else "no"
            print(
                f"| {row['pair']} | {row['files']} | {row['changed']:,} | {row['cause']} | --{one['tag']} | {one['patch_lines']} ({one['hunks']}) "
                f"| {within} | {'yes' if one['fails_on_old'] else 'NO'} | {one['tests']} | {one['seconds']} | {one['load_before']}–{one['load_after']} |"
            )


if __name__ == "__main__":
    main()
