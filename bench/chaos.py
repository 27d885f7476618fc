"""Chaos and hostile-input runs: astreduce killed at random moments, and fed malformed options.

Run by hand from the repository root (both take minutes; standard library only)::

    python bench/chaos.py kills --kills 200      # SIGKILL at random moments
    python bench/chaos.py malformed              # bad options and inputs to every command
    python bench/chaos.py kills --kills 8 --seed 3 --python .venv/bin/python   # a smoke run

``kills`` starts, in turn, ``reduce`` on a file, ``reduce`` on a tree of
files, ``isolate`` and ``compare`` on corpora cases copied to a fresh folder,
and sends SIGKILL after a random delay (uniform between 0 and the length of a
whole run of that command, measured first). After each kill it checks what
docs/results.md promises: the inputs are byte for byte unchanged, and every output
that exists is complete: a reduced file or tree still reproduces when run by
an independent check (not astreduce), the passing and failing versions of
``isolate`` pass and fail, a JSON report or table parses, a CSV has its
header. A kill between a temporary's creation and its rename leaves the
temporary beside the output; the next run of the same command must clear it
(it is run again for a few seconds to check).

``malformed`` feeds every command options and inputs that cannot work (a
missing file, a binary file, options that do not go together, bad numbers, a
folder where a file is expected, an output over the input ...) and checks
each answer: exit status 2 (1 where docs/results.md says "does not reproduce"), one
line on standard error, no traceback, the input unchanged.

The exit status is 1 if any check failed; the figures (runs, kills, outputs
checked) are printed at the end.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CORPORA = REPO / "corpora"


# --- what a scenario is ---------------------------------------------------------------------------


@dataclass
class Scenario:
    """One command on copied inputs, with the checks of the outputs it may leave."""

    name: str
    prepare: Callable[[Path], list[str]]
    """Copy the inputs into the folder; the command's arguments (after ``-m astreduce``)."""
    inputs: Callable[[Path], list[Path]]
    """The files the command must never change."""
    check: Callable[[Path, str], list[str]]
    """Problems with the outputs that exist in the folder (``python`` runs the checks)."""


def digest(paths: list[Path]) -> dict[str, str]:
    found = {}
    for path in paths:
        for file in sorted(path.rglob("*")) if path.is_dir() else [path]:
            if file.is_file():
                found[str(file)] = hashlib.sha256(file.read_bytes()).hexdigest()
    return found


def leftovers(folder: Path) -> list[str]:
    """Temporary files of an atomic write that a kill left beside an output (the next run clears them)."""
    return [f"left behind: {p.name}" for p in folder.iterdir() if p.name.startswith(".") and p.name.endswith(".tmp")]


def raises(python: str, text: str, expected: str, cwd: Path) -> bool:
    program = cwd / "_chaos_check.py"
    program.write_text(text)
    try:
        done = subprocess.run([python, str(program)], capture_output=True, text=True, timeout=60, cwd=cwd)
    finally:
        program.unlink()
    return expected in done.stderr


def json_problems(path: Path) -> list[str]:
    if not path.exists():
        return []
    try:
        json.loads(path.read_text())
    except ValueError as error:
        return [f"{path.name}: not complete JSON: {error}"]
    return []


# --- reduce, one file: the markup example -----------------------------------------------------------

MARKUP = CORPORA / "markup_stripping"
MARKUP_TARGET = "AssertionError: My Test"


def markup_prepare(folder: Path) -> list[str]:
    shutil.copy(MARKUP / "input.py", folder / "input.py")
    shutil.copy(MARKUP / "check.py", folder / "check.py")
    return ["reduce", "input.py", "--expect", "AssertionError:My Test", "--append", "check.py",
            "-o", "out.py", "--report", "report.json", "-j", "2"]


def markup_check(folder: Path, python: str) -> list[str]:
    problems = json_problems(folder / "report.json")
    out = folder / "out.py"
    if out.exists():
        text = out.read_text() + "\n" + (folder / "check.py").read_text()
        if not raises(python, text, MARKUP_TARGET, folder):
            problems.append("out.py does not reproduce")
    return problems


# --- reduce, a tree: the invoicing package ----------------------------------------------------------

INVOICING = CORPORA / "multifile" / "invoicing_jpy_tax_split"


def tree_prepare(folder: Path) -> list[str]:
    shutil.copytree(INVOICING / "input", folder / "input")
    shutil.copy(INVOICING / "check.py", folder / "check.py")
    return ["reduce", "input", "--test", str(folder / "check.py"), "-o", "out", "--report", "report.json", "-j", "2"]


def tree_check(folder: Path, python: str) -> list[str]:
    problems = json_problems(folder / "report.json")
    out = folder / "out"
    if out.exists():
        done = subprocess.run([python, str(folder / "check.py"), str(out)], capture_output=True, timeout=120, cwd=out)
        if done.returncode != 0:
            problems.append("out/ does not reproduce")
    return problems


# --- isolate: a release pair -------------------------------------------------------------------------

PAIR = CORPORA / "isolate" / "helper_dependency"
PAIR_TARGET = "AssertionError: report gives '0.002 m'"


def isolate_prepare(folder: Path) -> list[str]:
    for name in ("old.py", "new.py", "check.py"):
        shutil.copy(PAIR / name, folder / name)
    return ["isolate", "old.py", "new.py", "--append", "check.py", "--expect", "AssertionError:report gives '0.002 m'",
            "-o", "changes.diff", "--report", "report.json", "-j", "2"]


def isolate_check(folder: Path, python: str) -> list[str]:
    problems = json_problems(folder / "report.json")
    check = (folder / "check.py").read_text()
    failing = folder / "changes.failing.py"
    if failing.exists() and not raises(python, failing.read_text() + "\n" + check, PAIR_TARGET, folder):
        problems.append("changes.failing.py does not reproduce")
    passing = folder / "changes.passing.py"
    if passing.exists() and raises(python, passing.read_text() + "\n" + check, PAIR_TARGET, folder):
        problems.append("changes.passing.py fails")
    diff = folder / "changes.diff"
    if diff.exists() and diff.read_text() and not diff.read_text().endswith("\n"):
        problems.append("changes.diff is cut short")
    return problems


# --- compare: the markup example, three strategies -----------------------------------------------------


def compare_prepare(folder: Path) -> list[str]:
    markup_prepare(folder)
    return ["compare", "input.py", "--expect", "AssertionError:My Test", "--append", "check.py",
            "--strategy", "lines", "--strategy", "tokens", "--strategy", "auto", "--report", "table.json", "--csv", "table.csv", "-j", "2"]


def compare_check(folder: Path, python: str) -> list[str]:
    problems = json_problems(folder / "table.json")
    csv = folder / "table.csv"
    if csv.exists():
        rows = csv.read_text().splitlines()
        if not rows or not rows[0].startswith("strategy") or len(rows) != 4:
            problems.append(f"table.csv is not complete: {len(rows)} lines")
    return problems


SCENARIOS = [
    Scenario("reduce file", markup_prepare, lambda f: [f / "input.py", f / "check.py"], markup_check),
    Scenario("reduce tree", tree_prepare, lambda f: [f / "input", f / "check.py"], tree_check),
    Scenario("isolate", isolate_prepare, lambda f: [f / "old.py", f / "new.py", f / "check.py"], isolate_check),
    Scenario("compare", compare_prepare, lambda f: [f / "input.py", f / "check.py"], compare_check),
]


# --- kills -----------------------------------------------------------------------------------------------


@dataclass
class Tally:
    runs: Counter[str] = field(default_factory=Counter)
    outputs: Counter[str] = field(default_factory=Counter)
    finished: Counter[str] = field(default_factory=Counter)
    litter: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)


def start(python: str, arguments: list[str], folder: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen([python, "-m", "astreduce", *arguments, "-q"], cwd=folder,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def full_length(python: str, scenario: Scenario, cap: float) -> float:
    """Seconds of one whole run (at most ``cap``): the kills fall anywhere within it."""
    with tempfile.TemporaryDirectory(prefix="chaos-") as name:
        folder = Path(name)
        arguments = scenario.prepare(folder)
        started = time.monotonic()
        process = start(python, arguments, folder)
        try:
            process.wait(cap)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        return time.monotonic() - started


def kill_once(python: str, scenario: Scenario, delay: float, tally: Tally) -> None:
    with tempfile.TemporaryDirectory(prefix="chaos-") as name:
        folder = Path(name)
        arguments = scenario.prepare(folder)
        before = digest(scenario.inputs(folder))
        process = start(python, arguments, folder)
        try:
            process.wait(delay)
            tally.finished[scenario.name] += 1  # it ended before the kill: its outputs are checked all the same
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGKILL)
            process.wait()
        if process.stderr is not None:
            process.stderr.close()
        tally.runs[scenario.name] += 1
        time.sleep(0.2)  # children die with their parent (the parent-death signal): let them go
        problems = []
        if digest(scenario.inputs(folder)) != before:
            problems.append("an input changed")
        litter = leftovers(folder)
        if litter:
            # a kill between a temporary's creation and its rename leaves it; the next run must clear it
            tally.litter[scenario.name] += 1
            again = start(python, arguments, folder)
            deadline = time.monotonic() + 120  # until its first write of the output (after calibration)
            while set(litter) & set(leftovers(folder)) and again.poll() is None and time.monotonic() < deadline:
                time.sleep(0.2)
            again.send_signal(signal.SIGKILL)
            again.wait()
            if again.stderr is not None:
                again.stderr.close()
            problems += [f"{item}, not cleared by the next run" for item in set(litter) & set(leftovers(folder))]
        problems += scenario.check(folder, python)
        outputs = [p for p in folder.iterdir() if p.name not in {q.name for q in scenario.inputs(folder)}]
        tally.outputs[scenario.name] += len(outputs)
        for problem in problems:
            tally.problems.append(f"{scenario.name}, killed after {delay:.2f} s: {problem}")
            print(f"  PROBLEM {scenario.name} after {delay:.2f} s: {problem}", flush=True)


def kills(python: str, count: int, seed: int, cap: float, only: list[str]) -> int:
    rng = random.Random(seed)
    lengths = {s.name: full_length(python, s, cap) for s in SCENARIOS if not only or s.name in only}
    print("whole runs: " + ", ".join(f"{n} {s:.1f} s" for n, s in lengths.items()), flush=True)
    tally = Tally()
    scenarios = [s for s in SCENARIOS if not only or s.name in only]
    for index in range(count):
        scenario = scenarios[index % len(scenarios)]
        delay = rng.uniform(0.0, lengths[scenario.name])
        kill_once(python, scenario, delay, tally)
        if (index + 1) % 20 == 0:
            print(f"{index + 1} of {count} runs, {len(tally.problems)} problems", flush=True)
    print("\n| command | runs | killed | ended before the kill | outputs checked | temporaries left (cleared by the next run) |")
    print("|---|---:|---:|---:|---:|---:|")
    for scenario in (s for s in SCENARIOS if s.name in lengths):
        runs, done = tally.runs[scenario.name], tally.finished[scenario.name]
        print(f"| {scenario.name} | {runs} | {runs - done} | {done} | {tally.outputs[scenario.name]} | {tally.litter[scenario.name]} |")
    killed = sum(tally.runs.values()) - sum(tally.finished.values())
    print(f"\n{killed} kills, {len(tally.problems)} problems")
    return 1 if tally.problems else 0


# --- malformed options and inputs --------------------------------------------------------------------------


def malformed_cases(folder: Path) -> list[tuple[str, list[str], int]]:
    """(name, arguments, expected exit status) for every command."""
    (folder / "ok.py").write_text('x = 1\nassert x == 2, "two"\n')
    (folder / "binary.py").write_bytes(b"\x00\x01\x02\xff" * 64)
    (folder / "latin.py").write_bytes(b"x = '\xe9'\nassert 0\n")
    (folder / "broken.py").write_text("def (:\n")
    (folder / "dir").mkdir()
    (folder / "dir" / "a.py").write_text("raise ValueError\n")
    (folder / "passes.py").write_text("x = 1\n")
    (folder / "fails_too.py").write_text('x = 3\nassert x == 2, "three"\n')
    cases: list[tuple[str, list[str], int]] = []
    for command in ("reduce", "compare"):
        cases += [
            (f"{command}: missing file", [command, "missing.py"], 2),
            (f"{command}: binary file", [command, "binary.py"], 2),
            (f"{command}: undeclared latin-1", [command, "latin.py"], 2),
            (f"{command}: does not parse", [command, "broken.py"], 2),
            (f"{command}: bad --expect", [command, "ok.py", "--expect", "not an exception"], 2),
            (f"{command}: --expect with --run", [command, "ok.py", "--expect", "X", "--run", "{python} {file}"], 2),
            (f"{command}: --signal without --run", [command, "ok.py", "--signal", "SEGV"], 2),
            (f"{command}: bad signal", [command, "ok.py", "--run", "{python} {file}", "--signal", "NOPE"], 2),
            (f"{command}: bad regex", [command, "ok.py", "--match", "regex:("], 2),
            (f"{command}: --jobs 0", [command, "ok.py", "--jobs", "0"], 2),
            (f"{command}: --timeout -1", [command, "ok.py", "--timeout", "-1"], 2),
            (f"{command}: --retries 0", [command, "ok.py", "--retries", "0"], 2),
            (f"{command}: unknown python", [command, "ok.py", "--python", "9.9"], 2),
            (f"{command}: python 2.7 exec", [command, "ok.py", "--python", "2.7"], 2),
            (f"{command}: missing command", [command, "ok.py", "--run", "no-such-tool-xyz {file}"], 2),
            (f"{command}: missing script", [command, "ok.py", "--test", "missing.sh"], 2),
            (f"{command}: --run and --test", [command, "ok.py", "--run", "x", "--test", "missing.sh"], 2),
            (f"{command}: --hang 0", [command, "ok.py", "--run", "{python} {file}", "--hang", "0"], 2),
            (f"{command}: does not reproduce", [command, "passes.py"], 1),
            (f"{command}: unknown option", [command, "ok.py", "--frobnicate"], 2),
        ]
    cases += [
        ("reduce: unknown strategy", ["reduce", "ok.py", "--strategy", "magic"], 2),
        ("reduce: unknown transform", ["reduce", "ok.py", "--transforms", "nope"], 2),
        ("reduce: output is the input", ["reduce", "ok.py", "-o", "ok.py"], 2),
        ("reduce: output is a folder", ["reduce", "ok.py", "-o", "dir"], 2),
        ("reduce: directory without entry", ["reduce", "dir"], 2),
        ("reduce: --entry outside", ["reduce", "dir", "--entry", "../ok.py"], 2),
        ("reduce: --append missing", ["reduce", "ok.py", "--append", "missing.py"], 2),
        ("compare: unknown strategy", ["compare", "ok.py", "--strategy", "magic"], 2),
        ("compare: plot format", ["compare", "ok.py", "--strategy", "lines", "--plot", "x.bmpx"], 2),
        ("isolate: missing OLD", ["isolate", "missing.py", "ok.py"], 2),
        ("isolate: file and folder", ["isolate", "ok.py", "dir"], 2),
        ("isolate: identical", ["isolate", "ok.py", "ok.py"], 2),
        ("isolate: OLD fails too", ["isolate", "fails_too.py", "ok.py"], 1),
        ("isolate: bad granularity", ["isolate", "passes.py", "ok.py", "--granularity", "atoms"], 2),
        ("isolate: binary NEW", ["isolate", "passes.py", "binary.py"], 2),
        ("transforms: extra argument", ["transforms", "extra"], 2),
        ("no such command", ["frobnicate"], 2),
    ]
    return cases


def malformed(python: str) -> int:
    failures = 0
    with tempfile.TemporaryDirectory(prefix="chaos-malformed-") as name:
        folder = Path(name)
        cases = malformed_cases(folder)
        for label, arguments, expected in cases:
            before = digest([p for p in folder.iterdir() if p.is_file()])
            try:
                done = subprocess.run([python, "-m", "astreduce", *arguments], cwd=folder, capture_output=True,
                                      text=True, timeout=300)
            except subprocess.TimeoutExpired:
                print(f"FAIL {label}: no answer in 300 s")
                failures += 1
                continue
            lines = [line for line in done.stderr.splitlines() if line.strip()]
            problems = []
            if done.returncode != expected:
                problems.append(f"exit {done.returncode}, not {expected}")
            if "Traceback" in done.stderr:
                problems.append("a traceback")
            if done.returncode in (1, 2) and len(lines) != 1 and not done.stderr.startswith("Usage:"):
                problems.append(f"{len(lines)} lines on stderr")
            after = digest([p for p in folder.iterdir() if p.is_file() and str(p) in before])
            if any(before[k] != after.get(k) for k in before):
                problems.append("an input changed")
            status = "FAIL" if problems else "ok  "
            failures += bool(problems)
            print(f"{status} {label}: exit {done.returncode}: {lines[-1][:110] if lines else ''}"
                  + (f"  <- {'; '.join(problems)}" if problems else ""))
        print(f"\n{len(cases)} malformed runs, {failures} failed")
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="run", required=True)
    killing = sub.add_parser("kills", help="SIGKILL at random moments")
    killing.add_argument("--kills", type=int, default=200)
    killing.add_argument("--seed", type=int, default=1)
    killing.add_argument("--cap", type=float, default=60.0, help="longest window for a kill, in seconds")
    killing.add_argument("--only", action="append", default=[], help="only this command (e.g. 'reduce tree'); repeatable")
    for each in (killing, sub.add_parser("malformed", help="bad options and inputs to every command")):
        each.add_argument("--python", default=sys.executable, help="the interpreter that has astreduce installed")
    arguments = parser.parse_args()
    python = os.path.abspath(arguments.python) if os.sep in arguments.python else arguments.python
    if arguments.run == "kills":
        return kills(python, arguments.kills, arguments.seed, arguments.cap, arguments.only)
    return malformed(python)


if __name__ == "__main__":
    sys.exit(main())
