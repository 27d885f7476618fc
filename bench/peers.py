#!/usr/bin/env python3
"""Benchmark astreduce against peer reducers on the corpora cases.

::

    bash bench/install_peers.sh                 # once: the peers' environments
    python bench/peers.py                       # every case, every tool
    python bench/peers.py --cases markup_stripping --tools astreduce,shrinkray
    python bench/peers.py --markdown --json bench/out/results.json
    python bench/peers.py --crash --cases crash_cpython312_with_segfault \
        --tools astreduce,shrinkray,pysource-minimize

For each case the input is materialised into ``bench/out/<case>/`` and every
tool reduces its *own copy* of it in ``bench/out/<case>/<tool>/``, one test at
a time, under a per-tool time limit.  The peers all use the same oracle: the
case's shell interestingness script ``bench/out/<case>/interesting.sh``, which
appends a line to a counter file and runs ``bench/interesting.py`` (standard
library only, independent of astreduce).  astreduce uses its own exec oracle
with the case's ``args``.  Every tool's final output is re-checked with
``bench/interesting.py`` (not counted as a test) and measured with the corpora
token count.  See ``bench/README.md`` for the columns and each tool's
conventions.

``--crash`` runs the crash cases (``corpora/crash_*``, read by
``corpora/crash_tools.py``) instead: the input is built by the case's
``build.py`` and its tool environment comes from ``crash_tools.prepare_tool``
(cached).  The peers' script runs ``bench/crash_interesting.py``, which runs the
case's command oracle and classifies the run as its ``args`` say, through
``crash_tools`` (no astreduce import either); astreduce gets the case's args
with their placeholders filled in (``crash_tools.resolve_args``).  Outputs are
re-checked with ``crash_tools.reproduces`` (the args and the case's
``expect_signature``) and measured with ``crash_tools.token_count``.

Standard library only at import time: the pysource-minimize environment runs
this file too (``peers.py _pysource-minimize ...``) as that tool's driver.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import hashlib
import importlib
import importlib.util
import json
import os
import platform
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
PEERS = BENCH / ".peers"
CHECKER = BENCH / "interesting.py"
CRASH_CHECKER = BENCH / "crash_interesting.py"

ALL_TOOLS = ("astreduce", "shrinkray", "pysource-minimize", "picire", "lithium", "cvise")
PEER_TOOLS = ALL_TOOLS[1:]

# Per-test limit the tools themselves enforce; interesting.py has its own
# (default 10 s) and always answers first, so this only catches a stuck checker.
TOOL_TEST_TIMEOUT = 60
# crash_interesting.py's limit per oracle run is astreduce's default (ten times
# the input's run time, at least 2 s), capped so that it too answers first.
CRASH_RUN_TIMEOUT_CAP = TOOL_TEST_TIMEOUT - 10
# After the per-tool limit: SIGINT (SIGTERM for astreduce) so that the tool can
# write its best result, then SIGKILL after this many seconds.
GRACE_SECONDS = 15

# Options of `astreduce reduce` that interesting.py can reproduce for the peers.
EXEC_ORACLE_OPTIONS = {"--expect", "--match", "--append", "--python", "--timeout", "--same-frame"}
# Options that only steer astreduce's search; the peers ignore them.
SEARCH_OPTIONS = {
    "--strategy",
    "--transforms",
    "--format",
    "--no-format",
    "-q",
    "--quiet",
    "--debug",
}
FLAG_OPTIONS = {"--same-frame", "--format", "--no-format", "-q", "--quiet", "--debug", "--stdin"}

LITHIUM_MARKER = "ASTREDUCE-BENCH-INTERESTING"


# --------------------------------------------------------------------------- records


@dataclasses.dataclass
class Oracle:
    """What interesting.py needs to judge a candidate of one case."""

    checker_args: list[str]  # options for interesting.py, before the candidate
    python: str  # interpreter for the candidates
    unsupported: list[str]  # oracle options interesting.py cannot reproduce
    astreduce_args: list[str]  # the case's args, for `astreduce reduce`
    checker = CHECKER

    def command(self, candidate: str) -> list[str]:
        # -S: the checker needs only the standard library, and skipping site
        # saves most of an interpreter start (over 100 ms here) on every test.
        return [sys.executable, "-S", str(self.checker), *self.checker_args, candidate]

    def verify(self, output: Path) -> tuple[bool, str]:
        """Whether a tool's final output still reproduces, and how it ended (not a test)."""
        done = subprocess.run(
            [*self.command(str(output))[:-1], "--verbose", str(output)],
            capture_output=True,
            text=True,
            check=False,
        )
        return done.returncode == 0, last_line(done.stderr)


@dataclasses.dataclass
class CrashOracle(Oracle):
    """What crash_interesting.py needs to judge a candidate of one crash case.

    ``verify`` asks more than the peers' script: ``crash_tools.reproduces``
    also wants the case's ``expect_signature``, as the corpora's own check does.
    """

    case: Any = None  # crash_tools.CrashCase
    env: Any = None  # crash_tools.ToolEnv
    crash_tools: ModuleType | None = None
    checker = CRASH_CHECKER

    def verify(self, output: Path) -> tuple[bool, str]:
        assert self.crash_tools is not None
        ok, what = self.crash_tools.reproduces(self.case, output, self.env)
        return ok, "" if ok else f"does not reproduce: {what}"[:200]


@dataclasses.dataclass
class Row:
    """One tool's figures on one case."""

    tool: str
    status: str = "skipped"  # ok, timeout, error, skipped
    note: str = ""
    version: str = ""
    command: list[str] = dataclasses.field(default_factory=list)
    returncode: int | None = None
    output: str | None = None
    tokens: int | None = None
    bytes: int | None = None
    lines: int | None = None
    tests: int | None = None
    seconds: float | None = None
    verified: bool | None = None
    report: dict[str, Any] | None = None


@dataclasses.dataclass
class CaseResult:
    name: str
    description: str
    input_tokens: int | None = None
    input_bytes: int | None = None
    input_lines: int | None = None
    note: str = ""
    rows: list[Row] = dataclasses.field(default_factory=list)

    def row(self, tool: str) -> Row | None:
        return next((row for row in self.rows if row.tool == tool), None)

    def best_peer(self, among: tuple[str, ...] = PEER_TOOLS) -> Row | None:
        """The peer with the fewest verified output tokens (then fewer tests, less time)."""
        rows = [
            row
            for row in self.rows
            if row.tool in among and row.verified and row.tokens is not None
        ]
        if not rows:
            return None
        return min(
            rows,
            key=lambda r: (r.tokens, r.tests if r.tests is not None else 1 << 60, r.seconds or 0.0),
        )


# --------------------------------------------------------------------------- helpers


def load_corpora_module(name: str) -> ModuleType:
    """The repository's ``corpora/<name>.py``: ``tools`` or ``crash_tools``.

    ``tools`` has load_cases, materialise and token_count; ``crash_tools`` has
    load_crash_cases, materialise, prepare_tool, reproduces and token_count.
    """
    path = REPO / "corpora" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"corpora_{name}", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"peers.py: cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"corpora_{name}"] = module  # dataclasses looks the module up
    spec.loader.exec_module(module)
    return module


def load_checker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_interesting", CHECKER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_interesting"] = module
    spec.loader.exec_module(module)
    return module


def resolve_python(value: str) -> str:
    """A ``--python`` value (a path, a command, or a version such as 3.12) as a path."""
    if os.sep in value and Path(value).exists():
        return str(Path(value).resolve())
    found = shutil.which(value) or shutil.which(f"python{value}")
    if found:
        return found
    try:
        root = subprocess.run(
            ["pyenv", "root"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        root = ""
    if root:
        candidates = sorted(Path(root, "versions").glob(f"{value}*/bin/python"))
        if candidates:
            return str(candidates[-1])
    raise SystemExit(f"peers.py: cannot find the Python {value!r} a case asks for")


def split_options(args: list[str]) -> list[tuple[str, str | None]]:
    """``astreduce reduce`` options as (name, value) pairs; ``--x=v`` and ``--x v`` alike."""
    pairs: list[tuple[str, str | None]] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg.startswith("-") and "=" in arg:
            name, _, value = arg.partition("=")
            pairs.append((name, value))
        elif arg in FLAG_OPTIONS or index + 1 >= len(args) or not arg.startswith("-"):
            pairs.append((arg, None))
        else:
            pairs.append((arg, args[index + 1]))
            index += 1
        index += 1
    return pairs


def build_oracle(args: list[str], workdir: Path, input_path: Path, checker: ModuleType) -> Oracle:
    """Translate a case's astreduce oracle options into interesting.py options."""
    options = split_options(args)
    values = {name: value for name, value in options}
    unsupported = [
        name
        for name, _ in options
        if name not in EXEC_ORACLE_OPTIONS and name not in SEARCH_OPTIONS
    ]
    wanted_python = values.get("--python")
    python = resolve_python(wanted_python) if wanted_python else sys.executable
    checker_args = ["--python", python]
    append = values.get("--append")
    if append:
        checker_args += ["--append", str((workdir / append).resolve())]
    if values.get("--timeout"):
        checker_args += ["--timeout", str(values["--timeout"])]
    match = values.get("--match") or "message"
    checker_args += ["--match", match]
    expect = values.get("--expect")
    needs_original = expect is None or "--same-frame" in values
    if needs_original and not unsupported:
        # astreduce takes the original's own exception as the target: so do we.
        program = input_path.read_text(encoding="utf-8")
        if append:
            program = program.rstrip("\n") + "\n" + (workdir / append).read_text(encoding="utf-8")
        ending = checker.run_candidate(program, python, 60.0, input_path.name)
        if ending.kind != "exception":
            raise RuntimeError(f"the input raises no exception ({ending.describe()})")
        if expect is None:
            expect = f"{ending.exception}:{ending.message}" if ending.message else ending.exception
        if "--same-frame" in values:
            checker_args += ["--frame", ending.frame]
    checker_args += ["--expect", expect or ""]
    return Oracle(checker_args, python, unsupported, list(args))


def measure(text: str, token_count: Callable[[str], int]) -> tuple[int | None, int, int]:
    """Tokens (None when the text does not tokenize), bytes, non-blank lines."""
    try:
        tokens: int | None = token_count(text)
    except Exception:  # noqa: BLE001  # tokenize raises several kinds on broken text
        tokens = None
    size = len(text.encode("utf-8", errors="surrogateescape"))
    lines = sum(1 for line in text.splitlines() if line.strip())
    return tokens, size, lines


def write_script(path: Path, lines: list[str]) -> None:
    path.write_text("#!/bin/sh\n" + "\n".join(lines) + "\n", encoding="utf-8")
    path.chmod(0o755)


def count_lines(path: Path) -> int:
    try:
        with path.open("rb") as handle:
            return sum(1 for _ in handle)
    except FileNotFoundError:
        return 0


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def peer_python(tool: str) -> Path:
    return PEERS / tool / "bin" / "python"


def package_version(tool: str, package: str) -> str:
    python = peer_python(tool)
    if not python.exists():
        return ""
    done = subprocess.run(
        [str(python), "-c", f"import importlib.metadata as m; print(m.version({package!r}))"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip()


# --------------------------------------------------------------------------- tools


@dataclasses.dataclass
class Plan:
    """How to run one tool on one case: the command, and where its result ends up."""

    command: list[str]
    output: Path
    cwd: Path
    env: dict[str, str] | None = None
    stop_signal: int = signal.SIGINT


class Tool:
    """A reducer: knows whether it is installed, its version and how to run it."""

    name = ""
    package = ""

    def missing(self) -> str | None:
        """Why the tool cannot run here, or None."""
        if not peer_python(self.name).exists():
            return "not installed (bash bench/install_peers.sh)"
        return None

    def version(self) -> str:
        return package_version(self.name, self.package)

    def plan(self, work: Path, input_copy: Path, case_dir: Path, case_args: list[str]) -> Plan:
        raise NotImplementedError

    def test_script(self, work: Path, case_script: Path) -> Path:
        """The tool's interestingness wrapper: the case's script, counting into work/tests.count.

        Convention of shrinkray, picire and C-Reduce's successors alike: the
        candidate's path is ``$1``, exit 0 means interesting.
        """
        script = work / "test.sh"
        write_script(
            script,
            [
                f"# {self.name}: candidate path in $1; exit 0 = interesting",
                f"BENCH_COUNTER={shlex.quote(str(work / 'tests.count'))}",
                "export BENCH_COUNTER",
                f'exec {shlex.quote(str(case_script))} "$1"',
            ],
        )
        return script


class AstReduce(Tool):
    name = "astreduce"
    package = "astreduce"
    command_line: list[str] | None = None  # --astreduce
    extra_args: list[str] = []  # --astreduce-args

    def __init__(self) -> None:
        self._help: str | None = None

    def base_command(self) -> list[str]:
        """``--astreduce CMD``, else ``astreduce`` on PATH, else this work tree's ``python -m astreduce``."""
        if self.command_line:
            return list(self.command_line)
        found = shutil.which("astreduce")
        if found:
            return [found]
        return [sys.executable, "-m", "astreduce"]

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
        return env

    def help_text(self) -> str:
        if self._help is None:
            done = subprocess.run(
                [*self.base_command(), "reduce", "--help"],
                capture_output=True,
                text=True,
                env=self.env(),
                cwd=REPO,
                check=False,
            )
            self._help = done.stdout if done.returncode == 0 else ""
        return self._help

    def missing(self) -> str | None:
        if not self.help_text():
            done = subprocess.run(
                [*self.base_command(), "reduce", "--help"],
                capture_output=True,
                text=True,
                env=self.env(),
                cwd=REPO,
                check=False,
            )
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            return f"`astreduce reduce --help` failed: {last}"
        return None

    def version(self) -> str:
        """The package version (installed or from pyproject.toml) and the work tree's commit."""
        done = subprocess.run(
            [*self.base_command(), "--version"],
            capture_output=True,
            text=True,
            env=self.env(),
            check=False,
        )
        version = done.stdout.strip().rpartition(" ")[2] if done.returncode == 0 else ""
        if not version:
            for line in (REPO / "pyproject.toml").read_text(encoding="utf-8").splitlines():
                if line.startswith("version"):
                    version = line.partition("=")[2].strip().strip('"')
                    break
        commit = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO), "status", "--porcelain", "--", "astreduce"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        if commit:
            version += f" ({commit}{'+dirty' if dirty else ''})"
        return version

    def plan(self, work: Path, input_copy: Path, case_dir: Path, case_args: list[str]) -> Plan:
        output = work / "output.py"
        command = [*self.base_command(), "reduce", str(input_copy), *case_args]
        command += ["-o", str(output), "--report", str(work / "report.json")]
        # -j arrives with the parallel-tests issue; until then astreduce runs one test at a time anyway.
        if "-j" in self.help_text().replace(",", " ").split():
            command += ["-j", "1"]
        command += ["--no-format", *self.extra_args]
        # cwd: the case folder, so that the args' relative paths (--append check.py) resolve.
        return Plan(command, output, case_dir, env=self.env(), stop_signal=signal.SIGTERM)


class ShrinkRay(Tool):
    name = "shrinkray"
    package = "shrinkray"

    def plan(self, work: Path, input_copy: Path, case_dir: Path, case_args: list[str]) -> Plan:
        test = self.test_script(work, case_dir / "interesting.sh")
        command = [
            str(PEERS / self.name / "bin" / "shrinkray"),
            "--parallelism", "1",
            "--ui", "basic",
            "--input-type", "arg",
            "--timeout", str(TOOL_TEST_TIMEOUT),
            "--no-llm",
            "--no-history",
            "--formatter", "none",
            "--seed", "0",
            str(test),
            str(input_copy),
        ]  # fmt: skip
        env = dict(os.environ, SHRINKRAY_LLM="0", HF_HUB_OFFLINE="1")
        return Plan(command, input_copy, work, env=env)


class PysourceMinimize(Tool):
    name = "pysource-minimize"
    package = "pysource-minimize"

    def plan(self, work: Path, input_copy: Path, case_dir: Path, case_args: list[str]) -> Plan:
        test = self.test_script(work, case_dir / "interesting.sh")
        output = work / "output.py"
        command = [str(peer_python(self.name)), str(Path(__file__).resolve()), "_pysource-minimize"]
        command += [str(input_copy), str(test), str(output)]
        return Plan(command, output, work)


class Picire(Tool):
    name = "picire"
    package = "picire"

    def plan(self, work: Path, input_copy: Path, case_dir: Path, case_args: list[str]) -> Plan:
        test = self.test_script(work, case_dir / "interesting.sh")
        out = work / "picire-out"
        command = [
            str(PEERS / self.name / "bin" / "picire"),
            "--input", str(input_copy),
            "--test", str(test),
            "--atom", "line",
            "--out", str(out),
            "--log-level", "INFO",
        ]  # fmt: skip
        env = dict(os.environ, PYTHONWARNINGS="ignore::UserWarning")
        return Plan(command, out / input_copy.name, work, env=env)


class Lithium(Tool):
    name = "lithium"
    package = "lithium-reducer"

    def test_script(self, work: Path, case_script: Path) -> Path:
        """Lithium has no exit-status condition: its ``outputs`` condition looks for a marker."""
        script = work / "test.sh"
        write_script(
            script,
            [
                "# lithium (`outputs` condition): candidate path in $1; prints the marker iff interesting",
                f"BENCH_COUNTER={shlex.quote(str(work / 'tests.count'))}",
                "export BENCH_COUNTER",
                f'{shlex.quote(str(case_script))} "$1" && echo {LITHIUM_MARKER}',
            ],
        )
        return script

    def plan(self, work: Path, input_copy: Path, case_dir: Path, case_args: list[str]) -> Plan:
        test = self.test_script(work, case_dir / "interesting.sh")
        temp = work / "lithium-tmp"
        temp.mkdir()  # lithium only creates a temporary folder of its own choosing
        command = [
            str(peer_python(self.name)), "-m", "lithium",
            "--lines",
            "--tempdir", str(temp),
            "outputs",
            "--timeout", str(TOOL_TEST_TIMEOUT),
            "--search", LITHIUM_MARKER,
            str(test),
            str(input_copy),
        ]  # fmt: skip
        return Plan(command, input_copy, work)


class CVise(Tool):
    name = "cvise"
    package = "cvise"

    def missing(self) -> str | None:
        if shutil.which("cvise") is None:
            return "not installed (optional: apt-get install cvise)"
        return None

    def version(self) -> str:
        done = subprocess.run(["cvise", "--version"], capture_output=True, text=True, check=False)
        return done.stdout.strip().removeprefix("cvise ")

    def test_script(self, work: Path, case_script: Path) -> Path:
        """C-Vise runs the script with no arguments in a folder holding the candidate."""
        script = work / "test.sh"
        write_script(
            script,
            [
                "# cvise: no arguments; the candidate is in the working directory under its name",
                f"BENCH_COUNTER={shlex.quote(str(work / 'tests.count'))}",
                "export BENCH_COUNTER",
                f'exec {shlex.quote(str(case_script))} "$PWD"/{shlex.quote(self.input_name)}',
            ],
        )
        return script

    def plan(self, work: Path, input_copy: Path, case_dir: Path, case_args: list[str]) -> Plan:
        self.input_name = input_copy.name
        test = self.test_script(work, case_dir / "interesting.sh")
        command = [
            "cvise",
            "--not-c",
            "--n", "1",
            "--tidy",
            "--skip-key-off",
            "--timeout", str(TOOL_TEST_TIMEOUT),
            str(test),
            input_copy.name,  # C-Vise refuses a test case path with a folder in it
        ]  # fmt: skip
        return Plan(command, input_copy, work)


TOOLS: dict[str, Callable[[], Tool]] = {
    "astreduce": AstReduce,
    "shrinkray": ShrinkRay,
    "pysource-minimize": PysourceMinimize,
    "picire": Picire,
    "lithium": Lithium,
    "cvise": CVise,
}


# --------------------------------------------------------------------------- running


def run_with_limit(plan: Plan, log: Path, limit: float) -> tuple[int | None, float, bool]:
    """Run the plan's command under a wall-clock limit; (return code, seconds, timed out)."""
    with log.open("wb") as handle:
        started = time.monotonic()
        child = subprocess.Popen(
            plan.command,
            cwd=plan.cwd,
            env=plan.env,
            stdin=subprocess.DEVNULL,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        timed_out = False
        try:
            child.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            timed_out = True
            # Some tools start helpers in sessions of their own (shrinkray's
            # Python reducer): note them now, while they are still descendants.
            helpers = descendants(child.pid)
            _signal_group(child.pid, plan.stop_signal)
            try:
                child.wait(timeout=GRACE_SECONDS)
            except subprocess.TimeoutExpired:
                _signal_group(child.pid, signal.SIGKILL)
                child.wait()
            for pid in helpers:
                _signal_group(pid, signal.SIGKILL)
        except BaseException:
            helpers = descendants(child.pid)
            _signal_group(child.pid, signal.SIGKILL)
            for pid in helpers:
                _signal_group(pid, signal.SIGKILL)
            child.wait()
            raise
        seconds = time.monotonic() - started
        _signal_group(child.pid, signal.SIGKILL)  # leftovers of the tool
    return child.returncode, seconds, timed_out


def descendants(pid: int) -> list[int]:
    """The process ids below ``pid`` (Linux /proc; empty elsewhere)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*/stat"):
        try:
            stat = entry.read_text()
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()
        if len(fields) > 1:
            parents.setdefault(int(fields[1]), []).append(int(entry.parent.name))
    found: list[int] = []
    todo = [pid]
    while todo:
        for kid in parents.get(todo.pop(), []):
            found.append(kid)
            todo.append(kid)
    return found


def _signal_group(pid: int, signum: int) -> None:
    """Signal the process group led by ``pid``, or the process alone if it leads none."""
    try:
        if os.getpgid(pid) == pid:
            os.killpg(pid, signum)
        else:
            os.kill(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def run_tool(
    tool: Tool,
    case: Any,
    case_dir: Path,
    oracle: Oracle,
    limit: float,
    token_count: Callable[[str], int],
) -> Row:
    row = Row(tool.name)
    why = tool.missing()
    if why:
        row.note = why
        return row
    if tool.name != "astreduce" and oracle.unsupported:
        row.note = "oracle not supported by bench/interesting.py: " + " ".join(oracle.unsupported)
        return row
    row.version = tool.version()
    work = case_dir / tool.name
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    # Every tool reduces its own copy: the case's input is never handed to a tool.
    input_copy = work / case.input_name
    shutil.copyfile(case_dir / case.input_name, input_copy)
    plan = tool.plan(work, input_copy, case_dir, list(oracle.astreduce_args))
    row.command = plan.command
    print(f"  {tool.name}: {shlex.join(plan.command)}", file=sys.stderr, flush=True)
    returncode, seconds, timed_out = run_with_limit(plan, work / "log.txt", limit)
    row.returncode = returncode
    row.seconds = round(seconds, 2)
    if timed_out:
        row.status = "timeout"
        row.note = f"stopped after {limit:g} s"
    elif returncode == 0:
        row.status = "ok"
    else:
        row.status = "error"
        row.note = f"exit status {returncode}: {last_log_line(work / 'log.txt')}"
    if tool.name == "astreduce":
        row.report = read_report(work / "report.json")
        if row.report is not None:
            row.tests = row.report.get("tests")
    else:
        row.tests = count_lines(work / "tests.count")
    if not plan.output.is_file():
        row.note = (row.note + "; " if row.note else "") + "no output file"
        return row
    row.output = str(plan.output)
    if timed_out:
        row.note += "; best result so far"
    text = plan.output.read_text(encoding="utf-8", errors="surrogateescape")
    row.tokens, row.bytes, row.lines = measure(text, token_count)
    row.verified, what = oracle.verify(plan.output)
    if not row.verified:
        row.note = (row.note + "; " if row.note else "") + f"output not verified: {what}"
    return row


def last_log_line(log: Path) -> str:
    try:
        return last_line(log.read_text(errors="replace"))
    except OSError:
        return ""


def last_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1].strip()[:160] if lines else ""


def read_report(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def prepare_case(
    case: Any, out: Path, tools_module: ModuleType, checker: ModuleType
) -> tuple[Path, Oracle]:
    """Materialise the case into out/<case>/ and write its interestingness script."""
    case_dir = out / case.name
    shutil.rmtree(case_dir, ignore_errors=True)
    case_dir.mkdir(parents=True)
    input_path = tools_module.materialise(case, case_dir)
    oracle = build_oracle(list(case.args), case_dir, input_path, checker)
    write_case_script(
        case_dir, case.name, "the program in $1 raises the case's target exception", oracle
    )
    return case_dir, oracle


def prepare_crash_case(
    case: Any, out: Path, crash_tools: ModuleType, tools_dir: Path
) -> tuple[Path, Oracle]:
    """Build the crash case's input into out/<case>/, get its tool environment, write its script.

    The input is run once here: it must reproduce (args and ``expect_signature``),
    and its run time sets the checker's per-run timeout as astreduce sets its own.
    """
    case_dir = out / case.name
    shutil.rmtree(case_dir, ignore_errors=True)
    case_dir.mkdir(parents=True)
    input_path = crash_tools.materialise(case, case_dir)
    env = crash_tools.prepare_tool(case, tools_dir)
    options = case.oracle
    checker_args = ["--tools", str(tools_dir)]
    reference = None
    if not options.classified and options.test is None and options.differential is None:
        # Judged against the original's own signature, as crash_tools.reproduces does.
        reference = crash_tools.evaluate(case, input_path, env).results[0].signature
        checker_args += [f"--reference-status={reference[0]}", f"--reference-line={reference[1]}"]
    got = crash_tools.evaluate(case, input_path, env, reference)
    if not got.reproduces:
        raise RuntimeError(f"the input does not reproduce: {got.describe()}")
    if options.hang is None:
        seconds = max(run.seconds for run in got.results)
        checker_args += ["--timeout", f"{min(max(2.0, 10 * seconds), CRASH_RUN_TIMEOUT_CAP):.1f}"]
    checker_args.append(str(case.folder))
    oracle = CrashOracle(
        checker_args,
        str(env.python),
        [],
        crash_tools.resolve_args(case, env),
        case=case,
        env=env,
        crash_tools=crash_tools,
    )
    # Spares every test a `pyenv root` (crash_tools looks there for the case's Python).
    root = crash_tools.pyenv_root()
    exports = {"PYENV_ROOT": str(root)} if root is not None else {}
    verdict = "the case's command oracle finds the program in $1 interesting (as its args say)"
    write_case_script(case_dir, case.name, verdict, oracle, exports)
    return case_dir, oracle


def write_case_script(
    case_dir: Path,
    name: str,
    verdict: str,
    oracle: Oracle,
    exports: dict[str, str] | None = None,
) -> None:
    """``case_dir/interesting.sh``: count the test, then run the oracle's checker on ``$1``."""
    lines = [
        f"# Interestingness test for bench case {name} (C-Reduce / shrinkray convention):",
        f"# exit 0 iff {verdict}.",
        "# Each run appends a line to $BENCH_COUNTER (default: tests.count beside this script).",
        f'echo 1 >> "${{BENCH_COUNTER:-{case_dir / "tests.count"}}}"',
        *(f"export {key}={shlex.quote(value)}" for key, value in (exports or {}).items()),
        f'exec {shlex.join(oracle.command("CANDIDATE")[:-1])} "$1"',
    ]
    write_script(case_dir / "interesting.sh", lines)


def run_case(
    case: Any,
    tools: list[str],
    out: Path,
    limit: float,
    prepare: Callable[[Any, Path], tuple[Path, Oracle]],
    token_count: Callable[[str], int],
) -> CaseResult:
    """Prepare the case (``prepare_case`` or ``prepare_crash_case``), then run each tool on it."""
    result = CaseResult(case.name, case.description)
    print(f"== {case.name}", file=sys.stderr, flush=True)
    try:
        case_dir, oracle = prepare(case, out)
    except Exception as error:  # noqa: BLE001  # a broken case is reported, not fatal
        result.note = f"cannot prepare the case: {type(error).__name__}: {error}"
        print(f"  {result.note}", file=sys.stderr)
        return result
    input_path = case_dir / case.input_name
    text = input_path.read_text(encoding="utf-8")
    result.input_tokens, result.input_bytes, result.input_lines = measure(text, token_count)
    before = digest(input_path)
    if not oracle.unsupported:
        done = subprocess.run(oracle.command(str(input_path)), capture_output=True, check=False)
        if done.returncode != 0:
            result.note = f"the input does not reproduce under bench/{oracle.checker.name}"
            print(f"  {result.note}", file=sys.stderr)
            return result
    for name in tools:
        tool = TOOLS[name]()
        row = run_tool(tool, case, case_dir, oracle, limit, token_count)
        result.rows.append(row)
        print(f"  {name}: {row.status} {format_row(row)}", file=sys.stderr, flush=True)
        if digest(input_path) != before:
            raise SystemExit(f"peers.py: {name} modified {input_path}; stopping")
    return result


# --------------------------------------------------------------------------- tables


def fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "NO"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def format_row(row: Row) -> str:
    return (
        f"tokens={fmt(row.tokens)} bytes={fmt(row.bytes)} lines={fmt(row.lines)} "
        f"tests={fmt(row.tests)} seconds={fmt(row.seconds)} verified={fmt(row.verified)}"
    )


def render(headers: list[str], rows: list[list[str]], markdown: bool) -> str:
    numeric = [
        all(_is_number(r[i]) for r in rows if r[i] not in ("-", "")) for i in range(len(headers))
    ]
    if markdown:
        lines = ["| " + " | ".join(headers) + " |"]
        lines.append(
            "| " + " | ".join("---:" if n and i else "---" for i, n in enumerate(numeric)) + " |"
        )
        lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in r) + " |" for r in rows]
        return "\n".join(lines)
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)
    ]

    def line(cells: list[str]) -> str:
        parts = [
            cell.rjust(widths[i]) if numeric[i] and i else cell.ljust(widths[i])
            for i, cell in enumerate(cells)
        ]
        return "  ".join(parts).rstrip()

    return "\n".join([line(headers), "  ".join("-" * w for w in widths), *(line(r) for r in rows)])


def _is_number(text: str) -> bool:
    try:
        float(text.rstrip("x%"))
    except ValueError:
        return False
    return True


def case_table(result: CaseResult, markdown: bool) -> str:
    headers = ["tool", "tokens", "bytes", "lines", "tests", "seconds", "verified", "status"]
    rows = []
    for row in result.rows:
        status = row.status + (f": {row.note}" if row.note else "")
        rows.append(
            [row.tool, fmt(row.tokens), fmt(row.bytes), fmt(row.lines), fmt(row.tests), fmt(row.seconds),
             fmt(row.verified), status]
        )  # fmt: skip
    best = result.best_peer()
    if best is not None:
        rows.append(
            ["best peer", fmt(best.tokens), fmt(best.bytes), fmt(best.lines), fmt(best.tests), fmt(best.seconds),
             fmt(best.verified), best.tool]
        )  # fmt: skip
    title = (
        f"{result.name}: input {fmt(result.input_tokens)} tokens, {fmt(result.input_bytes)} bytes, "
        f"{fmt(result.input_lines)} lines"
    )
    if result.note:
        title += f" -- {result.note}"
    heading = f"### {title}" if markdown else title
    return heading + "\n\n" + render(headers, rows, markdown) if rows else heading


def ratio(a: float | None, b: float | None) -> str:
    if a is None or b is None or b == 0:
        return "-"
    return f"{a / b:.2f}"


def summary_table(results: list[CaseResult], markdown: bool) -> str:
    headers = ["case", "input", "astreduce", "best peer", "by", "ratio", "ratio sr/psm", "astreduce s",
               "shrinkray s", "time ratio"]  # fmt: skip
    rows = []
    for result in results:
        ours = result.row("astreduce")
        best = result.best_peer()
        modern = result.best_peer(("shrinkray", "pysource-minimize"))
        shrinkray = result.row("shrinkray")
        our_tokens = ours.tokens if ours is not None and ours.verified else None
        rows.append(
            [
                result.name,
                fmt(result.input_tokens),
                fmt(our_tokens),
                fmt(best.tokens if best else None),
                best.tool if best else "-",
                ratio(our_tokens, best.tokens if best else None),
                ratio(our_tokens, modern.tokens if modern else None),
                seconds_cell(ours),
                seconds_cell(shrinkray),
                time_ratio(ours, shrinkray),
            ]
        )
    heading = "### Summary" if markdown else "Summary"
    legend = (
        "Tokens of verified outputs only. ratio: astreduce / best peer; ratio sr/psm: astreduce / "
        "the better of shrinkray and pysource-minimize; time ratio: astreduce / shrinkray seconds. "
        "'(timeout)': stopped at --timeout, so the time is a lower bound."
    )
    return heading + "\n\n" + render(headers, rows, markdown) + "\n\n" + legend


def seconds_cell(row: Row | None) -> str:
    if row is None or row.status == "skipped":
        return "-"
    return fmt(row.seconds) + (" (timeout)" if row.status == "timeout" else "")


def time_ratio(ours: Row | None, theirs: Row | None) -> str:
    """astreduce / peer seconds; '<' or '>' when a time limit makes it a bound."""
    if ours is None or theirs is None or "skipped" in (ours.status, theirs.status):
        return "-"
    value = ratio(ours.seconds, theirs.seconds)
    if value == "-":
        return value
    our_bound, their_bound = ours.status == "timeout", theirs.status == "timeout"
    if their_bound and not our_bound:
        return "<" + value
    if our_bound and not their_bound:
        return ">" + value
    return value if not our_bound else "~" + value


# --------------------------------------------------------------------------- pysource-minimize driver


def drive_pysource_minimize(argv: list[str]) -> int:
    """Run pysource-minimize's ``minimize()`` with a shell interestingness script.

    Runs inside the pysource-minimize environment.  The tool's API takes a
    ``checker(source) -> bool``; ours writes the candidate to a file, runs the
    script on it and saves every interesting candidate to OUTPUT, so that a
    timeout still leaves the best result so far.
    """
    input_path, script, output = (Path(a) for a in argv)
    minimize = importlib.import_module("pysource_minimize").minimize  # only in its environment

    candidates = output.parent / "candidates"
    candidates.mkdir(exist_ok=True)
    candidate = candidates / input_path.name

    def save(text: str) -> None:
        partial = output.with_name(output.name + ".part")
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, output)

    def checker(source: str) -> bool:
        candidate.write_text(source, encoding="utf-8")
        done = subprocess.run(
            [str(script), str(candidate)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        if done.returncode == 0:
            save(source)
            return True
        return False

    source = input_path.read_text(encoding="utf-8")
    try:
        result = minimize(source, checker)
    except ValueError as error:  # CouldNotMinimize: the ast round trip loses the failure
        print(f"pysource-minimize: {error}", file=sys.stderr)
        return 1
    save(result)
    return 0


# --------------------------------------------------------------------------- main


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="peers.py",
        description="Run astreduce and peer reducers on the corpora cases and compare them.",
    )
    parser.add_argument(
        "--corpora",
        type=Path,
        default=REPO / "corpora",
        help="folder of cases (default: %(default)s)",
    )
    parser.add_argument(
        "--crash",
        action="store_true",
        help="run the crash cases (corpora/crash_*, command oracles) instead of the exec cases",
    )
    parser.add_argument(
        "--tool-envs",
        type=Path,
        metavar="DIR",
        help="with --crash: the crash cases' tool environments (default: corpora/crash_tools.py's, "
        "$ASTREDUCE_TOOLS_DIR or bench/.tools)",
    )
    parser.add_argument("--cases", help="comma-separated case names (default: every case)")
    parser.add_argument(
        "--tools",
        help=f"comma-separated tools (default: {','.join(ALL_TOOLS)}; cvise if installed)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=600.0,
        help="seconds per tool and case (default: %(default)s)",
    )
    parser.add_argument(
        "--out", type=Path, default=BENCH / "out", help="work folder (default: %(default)s)"
    )
    parser.add_argument(
        "--astreduce",
        metavar="CMD",
        help="command that runs astreduce (default: `astreduce` on PATH, else `python -m astreduce` "
        "from this work tree)",
    )
    parser.add_argument(
        "--astreduce-args",
        metavar="ARGS",
        help="more options for `astreduce reduce`, after the bench's own (e.g. '-j 2 --strategy hdd')",
    )
    parser.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    parser.add_argument(
        "--json", type=Path, metavar="OUT", help="write every figure to this JSON file"
    )
    return parser


def _terminate(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_pysource-minimize"]:
        return drive_pysource_minimize(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    # A terminated harness stops the running tool too (run_with_limit's cleanup).
    signal.signal(signal.SIGTERM, _terminate)
    if args.tools:
        tools = [t.strip() for t in args.tools.split(",") if t.strip()]
        unknown = [t for t in tools if t not in TOOLS]
        if unknown:
            parser.error(
                f"unknown tool(s) {', '.join(unknown)}; choose from {', '.join(ALL_TOOLS)}"
            )
    else:
        tools = [t for t in ALL_TOOLS if t != "cvise" or CVise().missing() is None]
    if args.astreduce:
        AstReduce.command_line = shlex.split(args.astreduce)
    if args.astreduce_args:
        AstReduce.extra_args = shlex.split(args.astreduce_args)
    prepare: Callable[[Any, Path], tuple[Path, Oracle]]
    if args.crash:
        crash_tools = load_corpora_module("crash_tools")
        cases = crash_tools.load_crash_cases(args.corpora)
        tools_dir = (args.tool_envs or crash_tools.tools_dir_default()).resolve()
        prepare = functools.partial(
            prepare_crash_case, crash_tools=crash_tools, tools_dir=tools_dir
        )
        token_count = crash_tools.token_count
    else:
        if args.tool_envs:
            parser.error("--tool-envs goes with --crash")
        tools_module = load_corpora_module("tools")
        cases = tools_module.load_cases(args.corpora)
        prepare = functools.partial(prepare_case, tools_module=tools_module, checker=load_checker())
        token_count = tools_module.token_count
    if args.cases:
        wanted = [c.strip() for c in args.cases.split(",") if c.strip()]
        unknown = sorted(set(wanted) - {case.name for case in cases})
        if unknown:
            parser.error(f"unknown case(s) in {args.corpora}: {', '.join(unknown)}")
        cases = [case for case in cases if case.name in wanted]
    if not cases:
        parser.error(f"no cases in {args.corpora}")
    out = args.out.resolve()
    results = []
    for case in cases:
        results.append(run_case(case, tools, out, args.timeout, prepare, token_count))
        print("\n" + case_table(results[-1], args.markdown) + "\n", flush=True)
    print(summary_table(results, args.markdown))
    if args.json:
        data = {
            "python": platform.python_version(),
            "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
            "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "timeout": args.timeout,
            "crash": args.crash,
            "tools": tools,
            "cases": [
                {
                    **{k: v for k, v in dataclasses.asdict(r).items() if k != "rows"},
                    "rows": [dataclasses.asdict(row) for row in r.rows],
                    "best_peer": (best.tool if (best := r.best_peer()) else None),
                }
                for r in results
            ],
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
