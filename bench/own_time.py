"""astreduce's own time per test: what the engine spends between two tests, beside the oracle.

Each test of a file reduction costs the oracle's run (fork, exec of the
candidate, wait; and the compile check that spares a test) plus
astreduce's own work around it: splice the edit, render the candidate, key
it, schedule the next one. This bench reduces corpora cases at ``-j 1`` and
prints, from the report, the wall seconds, the oracle's seconds, astreduce's
own milliseconds per test and the oracle's share of the wall clock::

    python bench/own_time.py                          # stdlib_argparse, 1 run
    python bench/own_time.py --cases stdlib_argparse,calc_tokenizer --runs 3
    python bench/own_time.py --profile argparse.prof  # and a cProfile of the first run, in-process
    python bench/own_time.py --options=--no-confine   # what confinement costs a test
    python bench/own_time.py --against HEAD~3 --runs 3 # that commit and this checkout, alternately
    python bench/own_time.py --cpu --jobs 2            # where the CPU goes: astreduce, fork server, tests

The machine's speed drifts by 15-20 % between minutes (a shared VM), so a
before/after is only worth its pairs: ``--against REV`` checks REV out in a
temporary git worktree and runs it and this checkout one after the other,
``--runs`` times, printing both medians and the ratio of each pair.

With ``--cpu`` the run is watched through ``/proc`` (every 0.1 s): the
CPU milliseconds per test of astreduce's own process, of its fork server and
of the tests' children (the server's reaped children), the seconds the
machine's cores stood idle, and the floor: all that CPU spread over every
core, the wall clock no schedule could beat on this machine.

With ``--profile`` the reduction runs in this process under cProfile
(slower, so its figures are printed apart) and the 25 functions with the
most own time are listed; open the file with ``python -m pstats``.
Standard library and astreduce only; run by hand on a quiet machine.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import importlib.util
import json
import os
import pstats
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("corpora_tools", REPO / "corpora" / "tools.py")
assert _spec is not None and _spec.loader is not None
tools = importlib.util.module_from_spec(_spec)
sys.modules["corpora_tools"] = tools
_spec.loader.exec_module(tools)


#: More options for every run (``--options=--no-confine``).
EXTRA: list[str] = []


#: The astreduce that runs: this checkout's, or a worktree's (``--against``), put first on PYTHONPATH.
SOURCE: list[Path] = []


def _command(case: "tools.Case", folder: Path, jobs: int) -> list[str]:
    args = [str(folder / a) if (folder / a).is_file() else a for a in case.args]
    return ["reduce", str(folder / case.input_name), *args, "-o", str(folder / "out.py"),
            "--report", str(folder / "report.json"), "-q", "-j", str(jobs), *EXTRA]


def measure(case: "tools.Case", jobs: int, cpu: bool = False) -> dict[str, float]:
    """One reduction of ``case`` in a subprocess: its report's tests and seconds (and with ``cpu``, where
    the CPU went: see :class:`CpuWatch`)."""
    with tempfile.TemporaryDirectory(prefix="own-time-") as place:
        folder = Path(place)
        tools.materialise(case, folder)
        command = [sys.executable, "-m", "astreduce", *_command(case, folder, jobs)]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(p) for p in SOURCE] + [os.environ.get("PYTHONPATH", "")])}
        with tempfile.TemporaryFile("w+") as stderr:
            watch = CpuWatch() if cpu else None
            process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr, text=True, cwd=folder, env=env)
            while process.poll() is None:
                if watch is not None:
                    watch.look(process.pid)
                time.sleep(0.1)
            if process.returncode != 0:
                stderr.seek(0)
                raise SystemExit(f"{case.name}: exit {process.returncode}: {stderr.read().strip()[-500:]}")
        report = json.loads((folder / "report.json").read_text())
    tests, seconds, oracle = report["tests"], report["seconds"], report["oracle_seconds"]
    row = {
        "tests": tests, "seconds": seconds, "oracle_seconds": oracle,
        "own_ms": 1000 * (seconds - oracle) / max(tests, 1), "share": oracle / seconds if seconds else 0.0,
        "tokens": report["output"]["tokens"],
    }
    if watch is not None:
        row.update(watch.figures(tests))
    return row


class CpuWatch:
    """Where a reduction's CPU goes, read from ``/proc`` while it runs: its own process, its children (the
    fork server) and what they reaped (the tests' children), and the machine's idle time."""

    def __init__(self) -> None:
        self.started = _machine()
        self.own = 0.0
        self.children: dict[int, tuple[float, float]] = {}  # pid -> (its own CPU, its reaped children's)

    def look(self, pid: int) -> None:
        own = _cpu(pid)
        if own is not None:
            self.own = own[0]
        try:
            kids = [int(k) for k in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        except OSError:
            kids = []
        for kid in kids:
            seen = _cpu(kid)
            if seen is not None:
                self.children[kid] = seen

    def figures(self, tests: int) -> dict[str, float]:
        busy, idle = (now - then for now, then in zip(_machine(), self.started))
        server = sum(own for own, _ in self.children.values())
        children = sum(reaped for _, reaped in self.children.values())
        per_test = 1000 / max(tests, 1)
        cores = os.cpu_count() or 1
        return {
            "parent_ms": self.own * per_test, "server_ms": server * per_test, "tests_ms": children * per_test,
            "idle_s": idle, "floor_s": (self.own + server + children) / cores, "machine_busy_s": busy,
        }


_TICKS = os.sysconf("SC_CLK_TCK")


def _cpu(pid: int) -> tuple[float, float] | None:
    """A process's own CPU seconds, and those of the children it reaped (``/proc/PID/stat``)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / _TICKS, (int(fields[13]) + int(fields[14])) / _TICKS


def _machine() -> tuple[float, float]:
    """The machine's busy and idle CPU seconds since it started (``/proc/stat``)."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]  # idle, iowait
    return (sum(values[:8]) - idle) / _TICKS, idle / _TICKS


def profile(case: "tools.Case", jobs: int, out: Path) -> None:
    """One reduction of ``case`` in this process under cProfile; the top functions by own time."""
    from astreduce.cli import main

    with tempfile.TemporaryDirectory(prefix="own-time-") as place:
        folder = Path(place)
        tools.materialise(case, folder)
        profiler = cProfile.Profile()
        started = time.monotonic()
        profiler.enable()
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # the result, which -q still prints
                main(_command(case, folder, jobs), standalone_mode=False)
        except SystemExit:
            pass
        profiler.disable()
        print(f"\nprofiled {case.name}: {time.monotonic() - started:.1f} s under cProfile; {out}")
    profiler.dump_stats(str(out))
    pstats.Stats(str(out)).sort_stats("tottime").print_stats(25)


def against(case: "tools.Case", jobs: int, runs: int, revision: str) -> None:
    """``case`` under ``revision`` (a temporary worktree) and under this checkout, alternately: a row per
    run, then both medians and the median ratio of the pairs (this checkout over the revision)."""
    with tempfile.TemporaryDirectory(prefix="own-time-rev-") as place:
        tree = Path(place) / "tree"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(tree), revision], check=True)
        try:
            rows: dict[str, list[dict[str, float]]] = {revision: [], "this": []}
            for run in range(runs):
                order = [(revision, tree), ("this", REPO)]
                for label, source in order if run % 2 == 0 else order[::-1]:  # who goes first alternates too
                    SOURCE[:] = [source]
                    row = measure(case, jobs)
                    rows[label].append(row)
                    print(f"{case.name:<22} {label:<10} {jobs:>3} {row['tests']:>6.0f} {row['tokens']:>6.0f} {row['seconds']:>8.1f} "
                          f"{row['oracle_seconds']:>8.1f} {row['own_ms']:>11.2f} {row['share']:>12.2f}")
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)], check=False)
            SOURCE.clear()
    for key, what in (("seconds", "seconds"), ("own_ms", "own ms/test"), ("share", "oracle share")):
        before = statistics.median(r[key] for r in rows[revision])
        now = statistics.median(r[key] for r in rows["this"])
        ratios = [b[key] / a[key] for a, b in zip(rows[revision], rows["this"]) if a[key]]
        print(f"  {what:<13} {revision}: {before:.2f}  this: {now:.2f}  pairs' median ratio {statistics.median(ratios):.3f}")
    if {r["tokens"] for r in rows[revision]} != {r["tokens"] for r in rows["this"]}:
        print("  the outputs differ in tokens: not the same reduction")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="stdlib_argparse", help="comma-separated corpora cases")
    parser.add_argument("--runs", type=int, default=1, help="runs per case (the median is printed; 0 with --profile: only the profile)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--profile", type=Path, help="also profile the first case in-process, into this file")
    parser.add_argument("--options", default="", help="more astreduce options for every run, e.g. --options=--no-confine")
    parser.add_argument("--against", metavar="REV", help="also run this git revision, alternating with this checkout")
    parser.add_argument("--cpu", action="store_true", help="also the CPU per test of astreduce, its fork server and the tests, and the machine's idle seconds")
    args = parser.parse_args()
    EXTRA[:] = shlex.split(args.options)
    cases = {c.name: c for c in tools.load_cases()}
    unknown = [n for n in args.cases.split(",") if n not in cases]
    if unknown:
        raise SystemExit(f"unknown cases: {', '.join(unknown)} (known: {', '.join(sorted(cases))})")
    build = f"{'build':<10} " if args.against else ""
    print(f"{'case':<22} {build}{'-j':>3} {'tests':>6} {'tokens':>6} {'seconds':>8} {'oracle s':>8} {'own ms/test':>11} {'oracle share':>12}")
    if args.against:
        for name in args.cases.split(","):
            against(cases[name], args.jobs, args.runs, args.against)
        print("\ncommand: " + shlex.join(["python", *sys.argv]))
        return 0
    cpu_rows: list[tuple[str, dict[str, float]]] = []
    for name in args.cases.split(","):
        rows = [measure(cases[name], args.jobs, args.cpu) for _ in range(args.runs)]
        if not rows:  # --runs 0: only the profile
            continue
        row = {key: statistics.median(r[key] for r in rows) for key in rows[0]}
        print(
            f"{name:<22} {args.jobs:>3} {row['tests']:>6.0f} {row['tokens']:>6.0f} {row['seconds']:>8.1f} "
            f"{row['oracle_seconds']:>8.1f} {row['own_ms']:>11.2f} {row['share']:>12.2f}"
        )
        cpu_rows.append((name, row))
    if args.cpu:
        print(f"\n{'case':<22} {'-j':>3} {'CPU ms/test: astreduce':>22} {'fork server':>11} {'tests':>6} {'idle s':>7} {'floor s':>7} {'seconds':>8}")
        for name, row in cpu_rows:
            print(
                f"{name:<22} {args.jobs:>3} {row['parent_ms']:>22.2f} {row['server_ms']:>11.2f} {row['tests_ms']:>6.2f} "
                f"{row['idle_s']:>7.1f} {row['floor_s']:>7.1f} {row['seconds']:>8.1f}"
            )
    if args.profile:
        profile(cases[args.cases.split(",")[0]], args.jobs, args.profile)
    print("\ncommand: " + shlex.join(["python", *sys.argv]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
