"""Tokens reached at fixed budgets on the tree cases: so that a tree that ends larger at a budget shows.

For each case of ``corpora/multifile/`` this runs ``astreduce reduce DIR --test
SCRIPT -j JOBS --max-time MAX`` once, watches the output folder (every smaller
reproducing tree is written there at once) and prints the tokens reached at
60, 120 and 300 s, the seconds at which it first had at most 1/5, 1/10 and
1/20 of its input's tokens (run with a longer ``--max-time`` to see how far a
bar is), the seconds to the fixpoint when the run ends before its budget, the tests and the tests the report puts in the passes over code the
original never executes. Run by hand, not in CI::

    python bench/tree_budget.py                                  # every case, -j 2, 300 s
    python bench/tree_budget.py --cases stdlib_email --checkout /path/to/other/checkout
    python bench/tree_budget.py --extra=--no-coverage-first      # main's order of passes
    python bench/tree_budget.py --pytest pint_1658 --python /path/to/venv/bin/python   # a corpora/pytest case
    python bench/tree_budget.py --cases stdlib_email --extra=--no-coverage-first --reach 6052     # tests to cut what never runs

``--pytest`` takes cases of ``corpora/pytest/`` instead: ``astreduce pytest NODE``
in a copy of the case's project, its tests run by ``--python`` (an environment
with the case's ``requires``); the tokens are those of the project's Python files.

``--checkout`` runs the astreduce of another source folder (put first on
``PYTHONPATH``) under the same interpreter: before and after, alternately,
on a loaded machine. Every row records the load average (``os.getloadavg``)
at its start. Standard library only.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parent.parent
MARKS = (60, 120, 300)
#: Shares of the input's tokens whose first crossing each row times.
SHARES = (5, 10, 20)


def _tools() -> ModuleType:
    spec = importlib.util.spec_from_file_location("tree_budget_multifile_tools", REPO / "corpora" / "multifile" / "tools.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def tree_tokens(folder: Path, count: object) -> int | None:
    """The tokens of the Python files under ``folder`` (as the corpora count them); None while it is being replaced."""
    total = 0
    try:
        for path in folder.rglob("*"):
            if path.is_file() and path.name != ".astreduce-output":  # astreduce's mark of a result tree
                text = path.read_text(encoding="utf-8", errors="replace")
                try:
                    total += count(text)  # type: ignore[operator]
                except Exception:
                    total += len(text.split())  # not Python: words
    except OSError:
        return None
    return total


@dataclass(frozen=True)
class PytestCase:
    """A case of ``corpora/pytest/``: its project and failing node."""

    name: str
    project: Path
    node: str


def pytest_cases(names: list[str]) -> list[PytestCase]:
    found = []
    for name in names:
        folder = REPO / "corpora" / "pytest" / name
        settings = tomllib.loads((folder / "case.toml").read_text(encoding="utf-8"))
        found.append(PytestCase(name, folder / "project", str(settings["node"])))
    return found


def run_case(
    case: object, tools: ModuleType, *, jobs: int, budget: float, checkout: Path | None, extra: list[str], python: str | None = None,
    reach: int | None = None,
) -> dict[str, object]:
    work = Path(tempfile.mkdtemp(prefix="tree-budget-"))
    try:
        output, report = work / "out", work / "report.json"
        if isinstance(case, PytestCase):
            shutil.copytree(case.project, work / "project")
            args = ["pytest", case.node, "-o", str(output), "--report", str(report), "-q"]
            args += ["--python", python] if python else []
            cwd = work / "project"
            size = tree_tokens(case.project, tools.token_count)
        else:
            source = tools.materialise(case, work)
            size = tree_tokens(source, tools.token_count) if source.is_dir() else None
            args = ["reduce", str(source), *tools.resolve_args(case, work), "-o", str(output), "--report", str(report), "-q"]
            cwd = work
        args += ["-j", str(jobs), "--max-time", str(budget), *extra]
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
        if checkout is not None:
            env["PYTHONPATH"] = str(checkout)
        load = os.getloadavg()[0]
        started = time.monotonic()
        process = subprocess.Popen([sys.executable, "-m", "astreduce", *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        seen: list[tuple[float, int]] = []
        while process.poll() is None:
            time.sleep(1.0)
            tokens = tree_tokens(output, tools.token_count) if output.is_dir() else None
            if tokens is not None and (not seen or tokens < seen[-1][1]):
                seen.append((time.monotonic() - started, tokens))
        seconds = time.monotonic() - started
        stderr = process.stderr.read() if process.stderr is not None else ""
        data = json.loads(report.read_text(encoding="utf-8")) if report.is_file() else {}
        final = tree_tokens(output, tools.token_count) if output.is_dir() else None
        row: dict[str, object] = {"case": case.name, "load": round(load, 2), "exit": process.returncode}  # type: ignore[attr-defined]
        if isinstance(case, PytestCase):
            row["input"] = tree_tokens(case.project, tools.token_count)
        for mark in MARKS:
            reached = [tokens for at, tokens in seen if at <= mark]
            row[f"{mark}s"] = reached[-1] if reached and mark <= budget else None
        for share in SHARES:
            row[f"1/{share}_s"] = next((round(at) for at, tokens in seen if size and tokens * share <= size), None)
        ended = not data.get("budget_ended", True)
        row["fixpoint_s"] = round(seconds, 1) if ended and process.returncode == 0 else None
        row["final"] = final
        row["tests"] = data.get("tests")
        unexecuted = [p for p in data.get("passes", []) if str(p.get("name", "")).startswith("unexecuted")]
        row["unexecuted_tests"] = sum(int(p.get("tests", 0)) for p in unexecuted)
        row["unexecuted_removed"] = sum(int(p.get("tokens_before", 0)) - int(p.get("tokens_after", 0)) for p in unexecuted)
        if reach is not None:  # the tests the search spent until the tree was that small (None: never)
            row["tests_to_reach"] = next((int(t) for t, tokens in data.get("history", []) if tokens <= reach), None)
        row["passes"] = [[p.get("name"), p.get("tests"), round(float(p.get("seconds", 0)), 1), p.get("tokens_after")] for p in data.get("passes", [])]
        row["timeline"] = [[round(at, 1), tokens] for at, tokens in seen]
        if process.returncode not in (0, None):
            row["stderr"] = stderr[-400:]
        return row
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default="", help="only these cases (comma-separated names)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--max-time", type=float, default=float(MARKS[-1]))
    parser.add_argument("--checkout", type=Path, help="run the astreduce of this source folder")
    parser.add_argument("--extra", action="append", default=[], help="one more astreduce option (repeatable)")
    parser.add_argument("--json", type=Path, help="also write the rows here")
    parser.add_argument("--pytest", default="", help="cases of corpora/pytest/ instead (comma-separated names)")
    parser.add_argument("--python", help="with --pytest: the interpreter that runs the project's tests")
    parser.add_argument("--reach", type=int, help="also print the tests spent until the tree had at most this many tokens "
                        "(as the report counts them): run with the tokens the coverage groups end at, and without them")
    args = parser.parse_args(argv)
    tools = _tools()
    wanted = {c for c in args.cases.split(",") if c}
    rows = []
    columns = ["case", "load", *(f"{m}s" for m in MARKS), *(f"1/{s}_s" for s in SHARES), "fixpoint_s", "final", "tests", "unexecuted_tests", "unexecuted_removed"]
    if args.reach is not None:
        columns.append("tests_to_reach")
    cases: list[object] = pytest_cases([c for c in args.pytest.split(",") if c]) if args.pytest else list(tools.load_cases())
    if args.pytest:
        columns.insert(2, "input")
    print(" | ".join(columns))
    for case in cases:
        if wanted and case.name not in wanted:  # type: ignore[attr-defined]
            continue
        row = run_case(
            case, tools, jobs=args.jobs, budget=args.max_time, checkout=args.checkout, extra=args.extra, python=args.python, reach=args.reach,
        )
        rows.append(row)
        print(" | ".join(str(row.get(c, "")) for c in columns), flush=True)
        if "stderr" in row:
            print("  stderr:", row["stderr"], flush=True)
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
