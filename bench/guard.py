"""Regression guard: every corpora output and test count, before a refactor and after.

A refactor of ``astreduce/`` (modules moved, helpers renamed) must not change
what astreduce does: the same output for every corpora case, the same number
of tests, the same report, at every ``-j``. This script records all of that
from one checkout and compares two recordings::

    python bench/guard.py record --python /work/baseline/.venv/bin/python --out before.json
    python bench/guard.py record --python .venv/bin/python --out after.json
    python bench/guard.py compare before.json after.json     # exit 0: all identical

``record`` runs ``PY -m astreduce`` as a subprocess (so PY can be any
checkout's venv; every run's working folder is a fresh temporary folder, so
the package imported is PY's, never the one beside this script) on every
case of five kinds, at each ``--jobs``:

* ``file``: the exec-oracle cases of ``corpora/tools.py``, slow ones too,
  reduced as ``tests/test_corpora.py`` does;
* ``tree``: the packages of ``corpora/multifile/``, as ``tests/test_multifile.py``;
* ``isolate``: ``corpora/isolate/`` at every granularity (case ``NAME/GRANULARITY``);
* ``compare``: ``astreduce compare`` on ``corpora/markup_stripping``;
* ``crash``: the ``crash_*`` cases with their tool environments, as
  ``bench/README.md`` ("Crash cases", item 4) runs them.

Per run it keeps the exit status, the inputs' sha256, every output file
(sha256 and text), standard output, ``tests`` and the report without its
wall-clock figures; ``cache_hits``, ``syntax_rejections`` and
``speculative`` depend on timing at ``-j 2`` and go, with the seconds, to an
``informational`` field that ``compare`` ignores. The JSON is rewritten after
every run, so an interrupted recording keeps what it did. Paths of the run's
folder, of the crash tools and of this repository are written as
``<work>``, ``<tools>`` and ``<repo>``.

Standard library only, like ``corpora/tools.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import difflib
import functools
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parent.parent
CORPORA = REPO / "corpora"
KINDS = ("file", "tree", "isolate", "compare", "crash")
GRANULARITIES = ("lines", "statements", "functions")
RUN_TIMEOUT = 3600  # seconds for one astreduce run
WALL_CLOCK = frozenset({"seconds", "oracle_seconds"})
TIMING_DEPENDENT = frozenset({"cache_hits", "syntax_rejections", "speculative"})
#: What says which checkout ran and where, not what it did (the Python, the layers of the room this
#: machine's kernel gives): informational, as the figures above.
WHO_RAN = frozenset({"astreduce_python", "confinement"})
COMPARED = ("status", "reason", "exit", "command", "inputs", "tests", "outputs", "stdout", "report")
DIFF_LINES = 40  # lines of a unified diff shown per differing output


class Skip(Exception):
    """The case cannot run here (a Python or a tool is missing)."""


@dataclasses.dataclass
class Setup:
    """One run, materialised: ``PY -m astreduce ARGS`` in ``cwd``."""

    args: list[str]
    cwd: Path
    outputs: Path  # the folder (or file) the run writes its results to
    report: Path
    inputs: list[Path]


@dataclasses.dataclass
class Plan:
    kind: str
    case: str
    setup: Callable[[Path, int], Setup]  # (fresh work folder, jobs) -> Setup


def _load(name: str, path: Path) -> ModuleType:
    """Import a corpora script by path, as the tests do (``corpora`` is data, not a package)."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look the defining module up
    spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def _builds_with(python: str) -> Iterator[None]:
    """``materialise`` runs a case's build with ``sys.executable``: make that PY, as under the tests."""
    saved, sys.executable = sys.executable, python
    try:
        yield
    finally:
        sys.executable = saved


def _append_absolute(args: list[str], folder: Path) -> list[str]:
    """The case's args with the ``--append`` file made absolute (``tests/test_corpora.py``)."""
    resolved: list[str] = []
    for index, arg in enumerate(args):
        if index > 0 and args[index - 1] == "--append":
            arg = str(folder / arg)
        elif arg.startswith("--append="):
            arg = "--append=" + str(folder / arg.partition("=")[2])
        resolved.append(arg)
    return resolved


# --- the cases ----------------------------------------------------------------------------


def file_plans(python: str) -> list[Plan]:
    tools = _load("guard_corpora_tools", CORPORA / "tools.py")

    def setup(case: Any, work: Path, jobs: int) -> Setup:
        folder = work / "case"
        with _builds_with(python):
            source = tools.materialise(case, folder)
        (work / "out").mkdir()
        output, report = work / "out" / "reduced.py", work / "report.json"
        args = ["reduce", str(source), *_append_absolute(case.args, folder)]
        args += ["-o", str(output), "--report", str(report), "-q", "-j", str(jobs)]
        return Setup(args, folder, output, report, sorted(p for p in folder.rglob("*") if p.is_file()))

    return [Plan("file", c.name, functools.partial(setup, c)) for c in tools.load_cases()]


def tree_plans(python: str) -> list[Plan]:
    tools = _load("guard_multifile_tools", CORPORA / "multifile" / "tools.py")

    def setup(case: Any, work: Path, jobs: int) -> Setup:
        source = tools.materialise(case, work)
        output, report = work / "out", work / "report.json"
        args = ["reduce", str(source), *tools.resolve_args(case, work)]
        args += ["-o", str(output), "--report", str(report), "-q", "-j", str(jobs)]
        return Setup(args, work, output, report, sorted(p for p in work.rglob("*") if p.is_file()))

    return [Plan("tree", c.name, functools.partial(setup, c)) for c in tools.load_cases()]


def isolate_plans(python: str) -> list[Plan]:
    build = CORPORA / "isolate" / "build.py"
    names = sorted(p.parent.name for p in build.parent.glob("*/case.toml"))

    def setup(name: str, granularity: str, work: Path, jobs: int) -> Setup:
        folder = work / "case"
        # built by PY itself: the case needs PY to be recent enough to run both versions
        done = subprocess.run(
            [python, str(build), name, str(folder)], capture_output=True, text=True, check=False, cwd=work
        )
        if done.returncode == 3:
            raise Skip(done.stderr.strip())
        if done.returncode != 0:
            raise RuntimeError(f"{build} {name} failed: {done.stderr.strip()}")
        old, new, check = (Path(line) for line in done.stdout.split())
        (work / "out").mkdir()
        report = work / "report.json"
        args = ["isolate", str(old), str(new), "--append", str(check), "--granularity", granularity]
        args += ["-o", str(work / "out" / "found.diff"), "--report", str(report), "-q", "-j", str(jobs)]
        return Setup(args, folder, work / "out", report, [old, new, check])

    return [
        Plan("isolate", f"{name}/{g}", functools.partial(setup, name, g))
        for name in names
        for g in GRANULARITIES
    ]


def compare_plans(python: str) -> list[Plan]:
    case = CORPORA / "markup_stripping"

    def setup(work: Path, jobs: int) -> Setup:
        folder = work / "case"
        folder.mkdir()
        for name in ("input.py", "check.py"):
            shutil.copyfile(case / name, folder / name)
        (work / "out").mkdir()
        report = work / "out" / "compare.json"
        # the README's command, without the plot; the rows' programs come out of the JSON
        args = ["compare", "input.py", "--append", "check.py", "--expect", "AssertionError:My Test"]
        args += ["--markdown", "--report", str(report), "-q", "-j", str(jobs)]
        return Setup(args, folder, work / "out" / "rows", report, [folder / "input.py", folder / "check.py"])

    return [Plan("compare", case.name, setup)]


def crash_plans(python: str) -> list[Plan]:
    crash_tools = _load("guard_crash_tools", CORPORA / "crash_tools.py")

    def setup(case: Any, work: Path, jobs: int) -> Setup:
        try:
            env = crash_tools.prepare_tool(case)  # cached in the default folder
        except crash_tools.ToolUnavailable as missing:
            raise Skip(str(missing)) from None
        source = crash_tools.materialise(case, work / "case")
        (work / "out").mkdir()
        output, report = work / "out" / "output.py", work / "report.json"
        args = ["reduce", str(source), *crash_tools.resolve_args(case, env)]
        args += ["-o", str(output), "--report", str(report), "-j", str(jobs), "--no-format", "-q"]
        return Setup(args, source.parent, output, report, [source])

    return [Plan("crash", c.name, functools.partial(setup, c)) for c in crash_tools.load_crash_cases(CORPORA)]


PLANNERS: dict[str, Callable[[str], list[Plan]]] = {
    "file": file_plans,
    "tree": tree_plans,
    "isolate": isolate_plans,
    "compare": compare_plans,
    "crash": crash_plans,
}


# --- one run --------------------------------------------------------------------------------


def _scrub(value: Any, paths: list[tuple[str, str]]) -> Any:
    """``value`` with every path of ``paths`` replaced by its placeholder (run-independent)."""
    if isinstance(value, str):
        for path, placeholder in paths:
            value = value.replace(path, placeholder)
        return value
    if isinstance(value, list):
        return [_scrub(item, paths) for item in value]
    if isinstance(value, dict):  # keys too: a report's origins are keyed by the output's path
        return {_scrub(key, paths): _scrub(item, paths) for key, item in value.items()}
    return value


def _split(value: Any, where: str = "") -> tuple[Any, dict[str, Any]]:
    """A report without its wall-clock and timing-dependent figures, and those figures by path."""
    if isinstance(value, dict):
        kept, aside = {}, {}
        for key, item in value.items():
            path = f"{where}.{key}" if where else key
            if key in WALL_CLOCK or key in TIMING_DEPENDENT or key in WHO_RAN:
                if key in TIMING_DEPENDENT or key in WHO_RAN or not where:  # each pass's seconds are left out
                    aside[path] = item
            else:
                kept[key], more = _split(item, path)
                aside.update(more)
        return kept, aside
    if isinstance(value, list):
        items = [_split(item, f"{where}[{i}]") for i, item in enumerate(value)]
        return [item for item, _ in items], {k: v for _, more in items for k, v in more.items()}
    return value, {}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _file_record(path: Path) -> dict[str, Any]:
    data = path.read_bytes()
    try:
        text: str | None = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    return {"sha256": _sha(data), "text": text}


def _outputs(place: Path, report: Any) -> dict[str, dict[str, Any]]:
    """Every file the run wrote (compare: each row's program, taken out of its JSON)."""
    if isinstance(report, dict) and isinstance(report.get("rows"), list):
        return {
            f"{row['strategy']}.py": {"sha256": _sha(str(row.get("output")).encode()), "text": row.get("output")}
            for row in report["rows"]
        }
    if place.is_file():
        return {place.name: _file_record(place)}
    if place.is_dir():
        # astreduce's mark of a result tree (.astreduce-output) is no part of the result
        return {p.relative_to(place).as_posix(): _file_record(p) for p in sorted(place.rglob("*")) if p.is_file() and p.name != ".astreduce-output"}
    return {}


def _headline(report: Any) -> tuple[int | None, int | None]:
    """(tests, tokens of the result) for the progress line and the tables."""
    if not isinstance(report, dict):
        return None, None
    if isinstance(report.get("rows"), list):  # compare: all strategies' tests, the smallest result
        return sum(r["tests"] for r in report["rows"]), min((r["tokens"] for r in report["rows"]), default=None)
    result = report.get("output") or report.get("isolated") or {}
    return report.get("tests"), result.get("tokens") if isinstance(result, dict) else None


def _table_without_timing(stdout: str) -> str:
    """compare's Markdown table with its seconds and cache hits columns blanked."""
    lines = stdout.splitlines()
    if not lines or not lines[0].startswith("|"):
        return stdout
    header = [cell.strip() for cell in lines[0].split("|")]
    columns = [i for i, name in enumerate(header) if name in ("seconds", "cache hits")]
    blanked = []
    for index, line in enumerate(lines):
        cells = line.split("|")
        for column in columns:
            if index >= 2 and len(cells) > column:  # below the header and its rule
                cells[column] = " - "
        blanked.append("|".join(cells))
    return "\n".join(blanked) + "\n"


def run_one(python: str, plan: Plan, jobs: int) -> dict[str, Any]:
    record: dict[str, Any] = {"kind": plan.kind, "case": plan.case, "jobs": jobs}
    work = Path(tempfile.mkdtemp(prefix="guard-"))
    try:
        return _run_in(python, plan, jobs, work, record)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _run_in(python: str, plan: Plan, jobs: int, work: Path, record: dict[str, Any]) -> dict[str, Any]:
    tools_dir = os.environ.get("ASTREDUCE_TOOLS_DIR") or str(REPO / "bench" / ".tools")
    paths = [(str(work.resolve()), "<work>"), (str(work), "<work>"), (tools_dir, "<tools>"), (str(REPO), "<repo>")]
    try:
        setup = plan.setup(work, jobs)
    except Skip as skip:
        record.update(status="skipped", reason=_scrub(str(skip), paths), informational={})
        return record
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME")}
    started = time.monotonic()
    try:
        done = subprocess.run(
            [python, "-m", "astreduce", *setup.args],
            cwd=setup.cwd, env=env, capture_output=True, text=True, check=False,
            stdin=subprocess.DEVNULL, timeout=RUN_TIMEOUT,
        )
        exit_status: int | str = done.returncode
        stdout, stderr = done.stdout, done.stderr
    except subprocess.TimeoutExpired as expired:
        exit_status, stdout, stderr = "timeout", str(expired.stdout or ""), str(expired.stderr or "")
    seconds = round(time.monotonic() - started, 1)
    raw: Any = None
    if setup.report.is_file():
        raw = json.loads(setup.report.read_text(encoding="utf-8"))
    outputs = _outputs(setup.outputs, raw)
    if isinstance(raw, dict) and isinstance(raw.get("rows"), list):
        raw = {**raw, "rows": [{k: v for k, v in row.items() if k != "output"} for row in raw["rows"]]}
        stdout = _table_without_timing(stdout)
    report, aside = _split(raw)
    tests, tokens = _headline(report)
    record.update(
        status="ok" if exit_status == 0 else "failed",
        exit=exit_status,
        command=_scrub(setup.args, paths),
        inputs={_scrub(str(p), paths): _sha(p.read_bytes()) for p in setup.inputs},
        tests=tests,
        output_tokens=tokens,
        outputs=_scrub(outputs, paths),
        stdout=_scrub(stdout, paths),
        report=_scrub(report, paths),
        informational={**aside, "wall_seconds": seconds, "stderr_tail": _scrub(stderr[-2000:], paths)},
    )
    return record


# --- record ---------------------------------------------------------------------------------


def _write(path: Path, data: dict[str, Any]) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(temporary, path)


def _about(python: str) -> dict[str, str]:
    """Which astreduce PY imports (from a neutral folder), and the commit of the corpora."""
    with tempfile.TemporaryDirectory() as neutral:
        probe = "import astreduce, sys; print(astreduce.__file__); print(sys.version.split()[0])"
        done = subprocess.run([python, "-c", probe], cwd=neutral, capture_output=True, text=True, check=False)
    lines = done.stdout.split("\n")
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, check=False)
    return {
        "python": python,
        "python_version": lines[1] if len(lines) > 1 else "",
        "astreduce": lines[0] if done.returncode == 0 else f"not importable: {done.stderr.strip()[-500:]}",
        "corpora_repo": str(REPO),
        "corpora_commit": commit.stdout.strip(),
    }


def record(python: str, out: Path, jobs_list: list[int], cases: set[str], kinds: list[str], resume: bool) -> int:
    python = os.path.abspath(python) if os.sep in python else python  # keep a venv's symlink
    about = _about(python)
    if about["astreduce"].startswith("not importable"):
        print(f"guard: {python}: astreduce {about['astreduce']}", file=sys.stderr)
        return 2
    print(f"guard: astreduce from {about['astreduce']} (Python {about['python_version']})", file=sys.stderr)
    plans = [plan for kind in kinds for plan in PLANNERS[kind](python)]
    if cases:
        plans = [p for p in plans if p.case in cases or p.case.split("/")[0] in cases]
    data: dict[str, Any] = {"guard": 1, "about": about, "jobs": jobs_list, "started": time.strftime("%Y-%m-%d %H:%M:%S"), "runs": []}
    if resume and out.is_file():  # keep the runs an interrupted recording made with this PY
        data = json.loads(out.read_text(encoding="utf-8"))
        if data["about"]["astreduce"] != about["astreduce"]:
            print(f"guard: {out} was recorded with {data['about']['astreduce']}, not this PY", file=sys.stderr)
            return 2
        data.pop("finished", None)
    done = {(run["kind"], run["case"], run["jobs"]) for run in data["runs"]}
    started = time.monotonic() - data.get("wall_seconds", 0.0)
    for plan in plans:
        for jobs in jobs_list:
            if (plan.kind, plan.case, jobs) in done:
                continue
            run = run_one(python, plan, jobs)
            data["runs"].append(run)
            data["wall_seconds"] = round(time.monotonic() - started, 1)
            _write(out, data)
            if run["status"] == "skipped":
                line = f"skipped: {run['reason'].splitlines()[0] if run['reason'] else ''}"
            else:
                line = (f"exit {run['exit']}  tests {run['tests']}  tokens {run['output_tokens']}  "
                        f"{run['informational']['wall_seconds']} s")
            print(f"{plan.kind:8} {plan.case:42} -j {jobs}  {line}", file=sys.stderr, flush=True)
            if run["status"] == "failed":
                print("  " + run["informational"]["stderr_tail"].strip()[-500:].replace("\n", "\n  "), file=sys.stderr)
    data["finished"] = time.strftime("%Y-%m-%d %H:%M:%S")
    _write(out, data)
    failed = sum(run["status"] == "failed" for run in data["runs"])
    print(f"guard: {len(data['runs'])} runs in {data['wall_seconds']:.0f} s, {failed} failed; wrote {out}", file=sys.stderr)
    return 0


# --- compare --------------------------------------------------------------------------------


def _flat(value: Any, where: str = "") -> dict[str, Any]:
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in _flat(item, f"{where}.{key}" if where else key).items()}
    if isinstance(value, list):
        return {k: v for i, item in enumerate(value) for k, v in _flat(item, f"{where}[{i}]").items()} or {where: []}
    return {where: value}


def _differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """What differs between two runs of the same case, in a few lines each."""
    found: list[str] = []
    for field in COMPARED:
        old, new = before.get(field), after.get(field)
        if field == "stdout" and before["kind"] == "compare" and old is not None and new is not None:
            old, new = _table_without_timing(old), _table_without_timing(new)
        if old == new:
            continue
        if field == "outputs":
            for name in sorted(set(old or {}) | set(new or {})):
                a, b = (old or {}).get(name), (new or {}).get(name)
                if a == b:
                    continue
                found.append(f"output {name}: " + ("only after" if a is None else "only before" if b is None else "differs"))
                texts = [(x or {}).get("text") or "" for x in (a, b)]
                diff = list(difflib.unified_diff(texts[0].splitlines(), texts[1].splitlines(), "before", "after", lineterm=""))
                found += ["    " + line for line in diff[:DIFF_LINES]]
                if len(diff) > DIFF_LINES:
                    found.append(f"    ... {len(diff) - DIFF_LINES} more diff lines")
        elif field in ("report", "inputs", "command"):
            flat_old, flat_new = _flat(old), _flat(new)
            keys = [k for k in sorted(set(flat_old) | set(flat_new)) if flat_old.get(k, "-") != flat_new.get(k, "-")]
            found += [f"{field} {k}: {flat_old.get(k, '-')!r} -> {flat_new.get(k, '-')!r}" for k in keys[:20]]
            if len(keys) > 20:
                found.append(f"{field}: {len(keys) - 20} more differences")
        elif field == "stdout":
            found.append("stdout differs")
        else:
            found.append(f"{field}: {old!r} -> {new!r}")
    return found


def _summary(run: dict[str, Any]) -> str:
    if run["status"] == "skipped":
        return "skipped"
    return f"exit {run['exit']}, {run['tests']} tests, {run['output_tokens']} tokens"


def _within(name: str, runs: list[dict[str, Any]]) -> str:
    """Informational: in one recording, is each case's output and test count the same at every -j?"""
    by_case: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for run in runs:
        if run["status"] != "skipped":
            by_case.setdefault((run["kind"], run["case"]), []).append(run)
    several = {key: group for key, group in by_case.items() if len({r["jobs"] for r in group}) > 1}
    if not several:
        return f"guard: within {name}: one -j per case, nothing to set side by side"
    differ, same_reports = [], 0
    for (kind, case), group in sorted(several.items()):
        facts = {(r["exit"], r["tests"], json.dumps(r["outputs"], sort_keys=True)) for r in group}
        same_reports += len({json.dumps(r["report"], sort_keys=True) for r in group}) == 1
        if len(facts) > 1:
            tests = ", ".join(f"-j {r['jobs']}: {r['tests']} tests" for r in group)
            outputs = "same outputs" if len({f[2] for f in facts}) == 1 else "different outputs"
            differ.append(f"{kind}/{case} ({tests}; {outputs})")
    jobs = "/".join(str(j) for j in sorted({r["jobs"] for r in runs}))
    line = (f"guard: within {name}, -j {jobs}: {len(several) - len(differ)} of {len(several)} cases identical "
            f"in exit, outputs and tests ({same_reports} in the whole report)")
    return line + ("; differ: " + "; ".join(differ) if differ else "")


def compare(before_path: Path, after_path: Path, allow_missing: bool) -> int:
    before, after = (json.loads(p.read_text(encoding="utf-8")) for p in (before_path, after_path))
    key: Callable[[dict[str, Any]], tuple[str, str, int]] = lambda r: (r["kind"], r["case"], r["jobs"])
    old, new = {key(r): r for r in before["runs"]}, {key(r): r for r in after["runs"]}
    for side, data in (("before", before), ("after", after)):
        print(f"{side}: {data['about']['astreduce']} (Python {data['about']['python_version']}), {data.get('started')}")
    common = [k for k in old if k in new]
    rows, details, per_kind = [], [], {kind: [0, 0] for kind in KINDS}
    for k in common:
        found = _differences(old[k], new[k])
        per_kind.setdefault(k[0], [0, 0])
        per_kind[k[0]][0] += not found
        per_kind[k[0]][1] += 1
        rows.append((k[0], k[1], f"-j {k[2]}", _summary(old[k]), _summary(new[k]), "identical" if not found else "DIFFERS"))
        if found:
            details.append(f"\n{k[0]} {k[1]} -j {k[2]}:\n  " + "\n  ".join(found))
    header = ("kind", "case", "jobs", "before", "after", "verdict")
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip())
    for detail in details:
        print(detail)
    only = [("before", k) for k in old if k not in new] + [("after", k) for k in new if k not in old]
    for side, k in only:
        print(f"only in {side}: {k[0]} {k[1]} -j {k[2]}")
    same = sum(counts[0] for counts in per_kind.values())
    kinds = ", ".join(
        f"{kind} {s}" if s == n else f"{kind} {s} of {n}" for kind, (s, n) in per_kind.items() if n
    )
    print(f"guard: {same} of {len(common)} runs identical ({kinds})" + (f"; {len(only)} runs in one file only" if only else ""))
    print(_within(before_path.name, before["runs"]))
    if after_path != before_path:
        print(_within(after_path.name, after["runs"]))
    return 0 if same == len(common) and (allow_missing or not only) else 1


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    rec = commands.add_parser("record", help="run every case and write the figures")
    rec.add_argument("--python", required=True, help="the interpreter whose astreduce runs (a venv's python)")
    rec.add_argument("--out", required=True, type=Path, help="the JSON file to write")
    rec.add_argument("--jobs", default="1,2", help="the -j values (default 1,2)")
    rec.add_argument("--cases", default="", help="only these cases (isolate: NAME or NAME/GRANULARITY)")
    rec.add_argument("--kinds", default=",".join(KINDS), help=f"only these kinds (default {','.join(KINDS)})")
    rec.add_argument("--resume", action="store_true", help="keep the runs already in --out, run the others")
    cmp_ = commands.add_parser("compare", help="compare two recordings; exit 0 iff identical")
    cmp_.add_argument("before", type=Path)
    cmp_.add_argument("after", type=Path)
    cmp_.add_argument("--allow-missing", action="store_true", help="runs in one file only do not fail the compare")
    options = parser.parse_args(argv)
    if options.command == "compare":
        return compare(options.before, options.after, options.allow_missing)
    kinds = [kind for kind in options.kinds.split(",") if kind]
    unknown = set(kinds) - set(KINDS)
    if unknown:
        parser.error(f"unknown kinds {sorted(unknown)}; choose from {','.join(KINDS)}")
    jobs = [int(j) for j in options.jobs.split(",") if j]
    cases = {c for c in options.cases.split(",") if c}
    return record(options.python, options.out, jobs, cases, kinds, options.resume)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
