"""Crash cases: their tools, their command oracles as data, and a checker.

The ``corpora/crash_*`` cases are crash repros of real bugs in real software:
CPython releases installed through pyenv, and pinned old releases of tools
from PyPI (mypy, black, autopep8, ...).  Each case's ``case.toml`` holds the
astreduce oracle options (``args``) and says which interpreter and packages
the crash needs (``tool_python``, ``requires``); see corpora/README.md.

Standard library only (no astreduce import), like ``corpora/tools.py``.  For
tests and benchmarks:

- ``load_crash_cases()``: every ``corpora/crash_*/case.toml``;
- ``prepare_tool(case, tools_dir)``: the case's tool environment, created once
  and cached under ``tools_dir/<hash>`` (a venv made with the pyenv Python named
  by ``tool_python``, with ``pip install -q <requires>``); its
  ``substitutions()`` (or ``tool_substitutions(case, tools_dir)``) fill
  ``{tool}``, ``{cache}`` and ``{case}`` in the case's args (``resolve_args``),
  leaving ``{file}`` and ``{python}`` to astreduce;
- ``materialise(case, outdir)``: the input (built at test time by the case's
  ``build.py`` from the standard library of the case's own interpreter);
- ``reproduces(case, path, env)``: does a file (astreduce's output, say) still
  crash the same way: the oracle finds it interesting *and* the run matches
  the case's ``expect_signature``.

From the command line it checks that every case reproduces, and prints a table::

    python corpora/crash_tools.py [--tools DIR] [--no-fixed] [NAME ...]

For each case it builds the input, runs the oracle on it three times (each
must be interesting and match ``expect_signature``; the median time is the
"seconds per run"), checks that ``control.py`` (the same module without the
trigger, written by the build) is *not* interesting, that ``expected_min.py``
(a hand-minimised repro) is interesting and within ``max_tokens``, and, where
the case names the release that fixed the bug (``fixed_python`` /
``fixed_requires``), that the fixed release crashes neither on the input nor
on ``expected_min.py``.

The oracle options are interpreted here as the issue defines them for
``astreduce reduce``: ``--run CMD`` (``{file}`` is the candidate's path inside a
fresh temporary folder that is also the working directory; ``{python}`` is the
interpreter chosen by ``--python``), ``--stdin``, ``--signal NAME|any``,
``--exit-code N``, ``--stderr REGEX``, ``--stdout REGEX``, ``--hang SECONDS``,
``--test SCRIPT``, ``--differential CMD1 CMD2``.  Classification options all
have to hold (regular expressions are searched, multi-line); without any, the
run's signature (fatal signal or exit status, and the last non-empty line of
stderr) must equal the original's.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import fcntl
import functools
import hashlib
import io
import json
import math
import os
import re
import resource
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import tokenize
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CASES_ROOT = Path(__file__).resolve().parent
REPO_ROOT = CASES_ROOT.parent

# Tool environments are cached here unless --tools or $ASTREDUCE_TOOLS_DIR says otherwise.
DEFAULT_TOOLS_DIR = REPO_ROOT / "bench" / ".tools"
TOOLS_DIR_ENV = "ASTREDUCE_TOOLS_DIR"

CASE_PREFIX = "crash_"

# Seconds a single run that is not looking for a hang may take before it counts as a timeout.
RUN_TIMEOUT = 120
# Seconds creating one tool environment (venv + pip install) may take.
INSTALL_TIMEOUT = 1200

BASE_KEYS = frozenset({"description", "input", "build", "args", "max_tokens", "slow"})
CRASH_KEYS = frozenset(
    {
        "kind",
        "tool",
        "tool_python",
        "requires",
        "expect_signature",
        "issue",
        "fixed_in",
        "fixed_python",
        "fixed_requires",
    }
)
KNOWN_KEYS = BASE_KEYS | CRASH_KEYS

# docs/results.md: tokens are the standard tokenize module's, less these kinds.
_NOT_COUNTED = frozenset(
    {
        tokenize.ENCODING,
        tokenize.NL,
        tokenize.NEWLINE,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.COMMENT,
        tokenize.ENDMARKER,
    }
)

# Variables that would make a tool run under a test harness differ from a plain run.
_SCRUBBED_ENV = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONINSPECT", "VIRTUAL_ENV")


class ToolUnavailable(Exception):
    """The interpreter or the packages a case needs cannot be had on this machine."""


class BuildError(Exception):
    """A case's input could not be built (the standard-library text changed, ...)."""


# --------------------------------------------------------------------------- cases


@dataclasses.dataclass
class CrashCase:
    """One crash case, as described by its ``case.toml``."""

    name: str
    folder: Path
    description: str
    args: list[str]
    max_tokens: int
    slow: bool
    kind: str
    tool: str
    tool_python: str
    requires: list[str]
    expect_signature: str
    issue: str
    fixed_in: str
    fixed_python: str | None = None
    fixed_requires: list[str] | None = None
    input_name: str = "input.py"
    build: str | None = None

    @property
    def expected_min(self) -> Path:
        """The hand-minimised repro that calibrates ``max_tokens``."""
        return self.folder / "expected_min.py"

    @property
    def oracle(self) -> Oracle:
        return parse_oracle(self.args)

    @property
    def has_fix_check(self) -> bool:
        return self.fixed_python is not None or self.fixed_requires is not None


def _parse_toml_subset(text: str) -> dict[str, object]:
    """Parse the flat TOML that case files use, for Pythons without ``tomllib`` (3.10).

    ``key = value`` lines whose value is a basic string, an integer, a boolean
    or an array of strings (an array may span lines), and ``#`` comments.
    """
    result: dict[str, object] = {}
    key, value = "", ""
    for lineno, line in enumerate(text.splitlines(), 1):
        line = _strip_comment(line).strip()
        if not line:
            continue
        if key:
            value += "\n" + line
        else:
            key, sep, value = (part.strip() for part in line.partition("="))
            if not sep or not key:
                raise ValueError(f"line {lineno}: expected key = value")
        if value.startswith("[") and not _is_complete(value):
            continue
        result[key] = value == "true" if value in ("true", "false") else ast.literal_eval(value)
        key, value = "", ""
    if key:
        raise ValueError(f"unterminated value for {key!r}")
    return result


def _strip_comment(value: str) -> str:
    quote = ""
    for index, char in enumerate(value):
        if quote:
            backslashes = len(value[:index]) - len(value[:index].rstrip("\\"))
            if char == quote and (quote == "'" or backslashes % 2 == 0):
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "#":
            return value[:index].rstrip()
    return value


def _is_complete(value: str) -> bool:
    try:
        ast.literal_eval(value)
    except (SyntaxError, ValueError):
        return False
    return True


def read_toml(path: Path) -> dict[str, object]:
    """Read a case file with ``tomllib`` where it exists, else with the subset parser."""
    text = path.read_text(encoding="utf-8")
    if sys.version_info >= (3, 11):
        import tomllib

        return dict(tomllib.loads(text))
    return _parse_toml_subset(text)


def _str_list(data: dict[str, object], key: str, where: str) -> list[str] | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise TypeError(f"{where}: {key} must be a list of strings")
    return list(value)


def load_crash_case(folder: Path | str) -> CrashCase:
    """Load the crash case in ``folder`` (which holds ``case.toml``)."""
    folder = Path(folder).resolve()
    where = f"{folder.name}/case.toml"
    data = read_toml(folder / "case.toml")
    unknown = set(data) - KNOWN_KEYS
    if unknown:
        raise ValueError(f"{where}: unknown keys {sorted(unknown)}")
    missing = {"description", "args", "max_tokens", "kind", "tool", "tool_python"} - set(data)
    missing |= {"expect_signature", "issue", "fixed_in"} - set(data)
    if missing:
        raise ValueError(f"{where}: missing keys {sorted(missing)}")
    max_tokens = data["max_tokens"]
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool):
        raise TypeError(f"{where}: max_tokens must be an integer")
    slow = data.get("slow", False)
    if not isinstance(slow, bool):
        raise TypeError(f"{where}: slow must be true or false")
    signature = str(data["expect_signature"])
    re.compile(signature)
    build = data.get("build")
    case = CrashCase(
        name=folder.name,
        folder=folder,
        description=str(data["description"]),
        args=_str_list(data, "args", where) or [],
        max_tokens=max_tokens,
        slow=slow,
        kind=str(data["kind"]),
        tool=str(data["tool"]),
        tool_python=str(data["tool_python"]),
        requires=_str_list(data, "requires", where) or [],
        expect_signature=signature,
        issue=str(data["issue"]),
        fixed_in=str(data["fixed_in"]),
        fixed_python=None if data.get("fixed_python") is None else str(data["fixed_python"]),
        fixed_requires=_str_list(data, "fixed_requires", where),
        input_name=str(data.get("input", "input.py")),
        build=None if build is None else str(build),
    )
    parse_oracle(case.args)  # fail early on a malformed oracle
    return case


def load_crash_cases(root: Path | str = CASES_ROOT) -> list[CrashCase]:
    """Every crash case under ``root`` (folders named ``crash_*`` holding ``case.toml``)."""
    root = Path(root)
    return [load_crash_case(toml.parent) for toml in sorted(root.glob(f"{CASE_PREFIX}*/case.toml"))]


# ------------------------------------------------------------------- interpreters


@functools.cache
def pyenv_root() -> Path | None:
    """pyenv's root folder: ``$PYENV_ROOT``, ``pyenv root``, or ``~/.pyenv``."""
    env = os.environ.get("PYENV_ROOT")
    if env and Path(env).is_dir():
        return Path(env)
    exe = shutil.which("pyenv")
    if exe:
        done = subprocess.run([exe, "root"], capture_output=True, text=True, check=False)
        if done.returncode == 0 and Path(done.stdout.strip()).is_dir():
            return Path(done.stdout.strip())
    home = Path.home() / ".pyenv"
    return home if home.is_dir() else None


def _version_key(name: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", name))


@functools.cache
def find_python(spec: str) -> Path:
    """The interpreter named by ``spec``: a path, or a pyenv version or version prefix.

    ``"3.12.1"`` is pyenv's 3.12.1; ``"3.12"`` is the newest installed 3.12.x.

    Raises:
        ToolUnavailable: no such interpreter here.
    """
    if os.sep in spec:
        path = Path(spec)
        if path.is_file() and os.access(path, os.X_OK):
            return path
        raise ToolUnavailable(f"no interpreter at {spec}")
    root = pyenv_root()
    if root is None:
        raise ToolUnavailable(f"Python {spec} is needed, and pyenv is not installed")
    found = []
    for folder in (root / "versions").glob(f"{spec}*"):
        name = folder.name
        if name != spec and not (name.startswith(spec + ".") and name[len(spec) + 1 :].isdigit()):
            continue
        python = folder / "bin" / "python"
        if python.is_file():
            found.append((_version_key(name), python))
    if not found:
        installed = sorted(p.name for p in (root / "versions").glob("*"))
        raise ToolUnavailable(f"Python {spec} is not installed (pyenv has {', '.join(installed)})")
    return max(found)[1]


@functools.cache
def python_version(python: Path) -> str:
    """``X.Y.Z`` of an interpreter (from its pyenv folder name, else by asking it)."""
    name = python.resolve().parent.parent.name
    if re.fullmatch(r"\d+\.\d+\.\d+", name):
        return name
    done = subprocess.run(
        [str(python), "-c", "import sys; print('.'.join(map(str, sys.version_info[:3])))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@functools.cache
def stdlib_dir(python: Path) -> Path:
    """The standard-library folder of an interpreter."""
    done = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise ToolUnavailable(f"{python} does not run: {done.stderr.strip()}")
    return Path(done.stdout.strip())


# ------------------------------------------------------------- tool environments


@dataclasses.dataclass
class ToolEnv:
    """What a case's oracle runs with."""

    python: Path  # the interpreter named by tool_python (or fixed_python)
    bin: Path  # the venv's bin folder; the interpreter's own when nothing is installed
    cache: Path  # a persistent folder for the tool's caches (mypy's --cache-dir, say)
    folder: Path | None  # tools_dir/<hash>, None when nothing is installed
    requires: list[str]
    create_seconds: float  # how long creating the venv took (when it was made)
    cached: bool  # the venv existed already

    def substitutions(self, case: CrashCase | None = None) -> dict[str, str]:
        """Values for the ``{tool}``, ``{cache}`` and (given the case) ``{case}`` placeholders."""
        subs = {"tool": str(self.bin), "cache": str(self.cache)}
        if case is not None:
            subs["case"] = str(case.folder)
        return subs


def tools_dir_default() -> Path:
    return Path(os.environ.get(TOOLS_DIR_ENV, DEFAULT_TOOLS_DIR))


def env_key(version: str, requires: list[str]) -> str:
    """The cache folder's name for an interpreter version and a package list."""
    text = json.dumps({"python": version, "requires": sorted(requires)}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _ignore_folder(tools_dir: Path) -> None:
    """Make the tools folder ignore itself in git (it lives in the work tree by default)."""
    tools_dir.mkdir(parents=True, exist_ok=True)
    marker = tools_dir / ".gitignore"
    if not marker.exists():
        marker.write_text("# tool environments made by corpora/crash_tools.py\n*\n")


def prepare_tool(
    case: CrashCase, tools_dir: Path | str | None = None, *, fixed: bool = False
) -> ToolEnv:
    """The case's tool environment, created on first use and cached.

    With ``fixed``, the environment of the release that fixed the bug
    (``fixed_python`` / ``fixed_requires``, each defaulting to the buggy one).

    Raises:
        ToolUnavailable: the interpreter is missing or the packages do not install.
    """
    tools_dir = Path(tools_dir) if tools_dir is not None else tools_dir_default()
    spec = case.tool_python
    requires = case.requires
    if fixed:
        spec = case.fixed_python or spec
        requires = case.fixed_requires if case.fixed_requires is not None else requires
    python = find_python(spec)
    version = python_version(python)
    key = env_key(version, requires)
    folder = tools_dir / key
    _ignore_folder(tools_dir)
    if not requires:
        cache = folder / "cache"
        cache.mkdir(parents=True, exist_ok=True)
        return ToolEnv(python, python.parent, cache, None, [], 0.0, True)
    ready = folder / "READY"
    with _locked(tools_dir / ".locks" / f"{key}.lock"):
        if ready.is_file():
            info = json.loads(ready.read_text())
            cached, seconds = True, float(info.get("seconds", 0.0))
        else:
            seconds = _create_venv(python, requires, folder)
            ready.write_text(
                json.dumps({"python": version, "requires": requires, "seconds": round(seconds, 1)})
            )
            cached = False
    cache = folder / "cache"
    cache.mkdir(exist_ok=True)
    return ToolEnv(python, folder / "venv" / "bin", cache, folder, list(requires), seconds, cached)


def _create_venv(python: Path, requires: list[str], folder: Path) -> float:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    started = time.perf_counter()
    venv = folder / "venv"
    steps = [
        [str(python), "-m", "venv", str(venv)],
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        + requires,
    ]
    for step in steps:
        done = subprocess.run(
            step,
            capture_output=True,
            text=True,
            check=False,
            timeout=INSTALL_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        if done.returncode != 0:
            shutil.rmtree(folder, ignore_errors=True)
            tail = "\n".join(done.stderr.strip().splitlines()[-5:])
            raise ToolUnavailable(f"{' '.join(step[:4])} ... failed:\n{tail}")
    return time.perf_counter() - started


_PLACEHOLDER = re.compile(r"\{(tool|cache|case)\}")


def tool_substitutions(case: CrashCase, tools_dir: Path | str | None = None) -> dict[str, str]:
    """Prepare the case's tool environment; return the values of its placeholders.

    Shorthand for ``prepare_tool(case, tools_dir).substitutions(case)``.
    """
    return prepare_tool(case, tools_dir).substitutions(case)


def resolve_args(case: CrashCase, env: ToolEnv) -> list[str]:
    """The case's args for ``astreduce reduce``: ``{tool}``, ``{cache}``, ``{case}`` filled in.

    ``{file}`` and ``{python}`` are left for astreduce to substitute.
    """
    subs = env.substitutions(case)
    return [_PLACEHOLDER.sub(lambda m: subs[m.group(1)], arg) for arg in case.args]


# ------------------------------------------------------------------------- inputs


def token_count(text: str) -> int:
    """The number of Python tokens in ``text`` as docs/results.md counts them."""
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    return sum(1 for token in tokens if token.type not in _NOT_COUNTED)


def max_tokens_for(min_tokens: int) -> int:
    """The corpora's ceiling rule: about 1.5 times the hand-minimised size, at least 10 more."""
    return max(math.ceil(min_tokens * 1.5), min_tokens + 10)


def materialise(case: CrashCase, outdir: Path | str) -> Path:
    """Put the case's input (and every case-folder file its args name) into ``outdir``.

    A case with ``build`` runs ``python build.py OUTDIR`` with the current
    interpreter; the build reads the standard library of the case's own
    interpreter, so the input is the same whichever Python runs the build.
    """
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    target = outdir / case.input_name
    if case.build:
        done = subprocess.run(
            [sys.executable, str(case.folder / case.build), str(outdir)],
            check=False,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        if done.returncode != 0:
            raise BuildError(f"{case.name}: {case.build} failed:\n{done.stderr.strip()}")
        if not target.is_file():
            raise BuildError(f"{case.name}: {case.build} did not write {case.input_name}")
    else:
        shutil.copyfile(case.folder / case.input_name, target)
    for arg in case.args:
        source = case.folder / arg
        if not arg.startswith("-") and source.is_file() and not (outdir / arg).exists():
            shutil.copyfile(source, outdir / arg)
    return target


def _comment(text: str) -> str:
    return "".join(f"# {line}\n".replace("# \n", "#\n") for line in text.splitlines())


def build_from_stdlib(
    case_folder: Path | str,
    outdir: Path | str,
    *,
    module: str,
    trigger: str,
    header: str,
    before: str | None = None,
    after: str | None = None,
) -> Path:
    """Write a case's input: a standard-library module of the case's interpreter plus a trigger.

    The module is read from the standard library of ``tool_python`` (so the
    input does not depend on the Python that runs the build).  ``trigger`` goes
    right before ``before`` or right after ``after`` (each must occur exactly
    once), else at the end.  Writes ``OUTDIR/input.py`` (the case's input) and
    ``OUTDIR/control.py`` (the same module without the trigger), each under a
    comment ``header``.

    Raises:
        BuildError: the anchor does not occur exactly once.
        ToolUnavailable: the interpreter is not installed.
    """
    case = load_crash_case(case_folder)
    python = find_python(case.tool_python)
    version = python_version(python)
    path = stdlib_dir(python) / module
    if not path.is_file():
        raise BuildError(f"{module} not found in the Python {version} standard library")
    text = path.read_text(encoding="utf-8")
    trigger = trigger.strip("\n") + "\n"
    anchor = before if before is not None else after
    if anchor is not None:
        found = text.count(anchor)
        if found != 1:
            raise BuildError(
                f"{case.name}: expected 1 occurrence of {anchor!r} in {module} of Python "
                f"{version}, found {found}"
            )
        if before is not None:
            injected = text.replace(anchor, trigger + "\n\n" + anchor)
        else:
            injected = text.replace(anchor, anchor + "\n\n" + trigger.rstrip("\n"))
    else:
        injected = text.rstrip("\n") + "\n\n\n" + trigger
    head = (
        f"{module} from the Python {version} standard library, built by\n"
        f"corpora/{case.name}/build.py."
    )
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "control.py").write_text(
        _comment(head + "\nControl: the module without the trigger (must not crash).") + text,
        encoding="utf-8",
    )
    target = out / case.input_name
    target.write_text(_comment(head + "\n" + header.strip("\n")) + injected, encoding="utf-8")
    return target


def build_main(build: Callable[[str], Path]) -> None:
    """Run a case's ``build(outdir)`` from the command line: ``python build.py OUTDIR``."""
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} OUTDIR")
    try:
        path = build(sys.argv[1])
    except (BuildError, ToolUnavailable) as exc:
        sys.exit(f"build failed: {exc}")
    print(path)


# ------------------------------------------------------------------------ oracles


@dataclasses.dataclass
class Oracle:
    """The command-oracle options of a case's ``args``."""

    run: str | None = None
    stdin: bool = False
    signal: str | None = None
    exit_code: int | None = None
    stderr: str | None = None
    stdout: str | None = None
    hang: float | None = None
    test: str | None = None
    differential: tuple[str, str] | None = None
    python: str | None = None

    @property
    def classified(self) -> bool:
        """Whether the run is classified by options (else: the original's signature)."""
        return any(
            value is not None
            for value in (self.signal, self.exit_code, self.stderr, self.stdout, self.hang)
        )


_VALUE_OPTIONS = {
    "--run": "run",
    "--signal": "signal",
    "--exit-code": "exit_code",
    "--stderr": "stderr",
    "--stdout": "stdout",
    "--hang": "hang",
    "--test": "test",
    "--python": "python",
}


def parse_oracle(args: list[str]) -> Oracle:
    """Read the command-oracle options out of a case's args (other options are rejected)."""
    oracle = Oracle()
    index = 0
    while index < len(args):
        arg = args[index]
        name, sep, inline = arg.partition("=")
        if arg == "--stdin":
            oracle.stdin = True
        elif name == "--differential":
            if index + 2 >= len(args):
                raise ValueError("--differential needs two commands")
            oracle.differential = (args[index + 1], args[index + 2])
            index += 2
        elif name in _VALUE_OPTIONS:
            if sep:
                value = inline
            else:
                if index + 1 >= len(args):
                    raise ValueError(f"{arg} needs a value")
                index += 1
                value = args[index]
            field = _VALUE_OPTIONS[name]
            if field == "exit_code":
                setattr(oracle, field, int(value))
            elif field == "hang":
                setattr(oracle, field, float(value))
            else:
                setattr(oracle, field, value)
        else:
            raise ValueError(f"unknown oracle option {arg!r}")
        index += 1
    if sum(x is not None for x in (oracle.run, oracle.test, oracle.differential)) != 1:
        raise ValueError("exactly one of --run, --test, --differential is needed")
    for regex in (oracle.stderr, oracle.stdout):
        if regex is not None:
            re.compile(regex)
    return oracle


@dataclasses.dataclass
class RunResult:
    """What one command did."""

    returncode: int | None  # None when it was killed at the time limit
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool
    cpu_seconds: float = 0.0  # user + system time of the command (its waited-for processes)

    @property
    def signal(self) -> str | None:
        """The name of the fatal signal (``SIGSEGV``), if a signal ended the process."""
        if self.returncode is None or self.returncode >= 0:
            return None
        try:
            return signal.Signals(-self.returncode).name
        except ValueError:
            return f"SIG{-self.returncode}"

    @property
    def status(self) -> str:
        """``hang``, ``signal SIGSEGV`` or ``exit N``."""
        if self.timed_out:
            return "hang"
        if self.signal is not None:
            return f"signal {self.signal}"
        return f"exit {self.returncode}"

    @property
    def last_stderr_line(self) -> str:
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        return lines[-1].strip() if lines else ""

    @property
    def signature(self) -> tuple[str, str]:
        """The default signature: fatal signal or exit status, and the last stderr line."""
        return self.status, self.last_stderr_line

    def text(self) -> str:
        """What ``expect_signature`` is searched in: status line, then stderr, then stdout."""
        return f"{self.status}\n{self.stderr}\n{self.stdout}"


def _environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in _SCRUBBED_ENV}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(argv: list[str], cwd: Path, stdin_path: Path | None, timeout: float) -> RunResult:
    started = time.perf_counter()
    cpu_before = _children_cpu()
    with open(stdin_path or os.devnull, "rb") as stdin:
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_environment(),
            start_new_session=True,
        )
        timed_out = False
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            out, err = process.communicate()
    return RunResult(
        None if timed_out else process.returncode,
        out.decode("utf-8", "replace"),
        err.decode("utf-8", "replace"),
        time.perf_counter() - started,
        timed_out,
        _children_cpu() - cpu_before,
    )


# A command with any of these runs through /bin/sh (its placeholders shell-quoted), as in astreduce.
_SHELL_SYNTAX = re.compile(r"[|&;<>()$`*?~\n]")


def _command_argv(command: str, subs: dict[str, str]) -> list[str]:
    """The argv for a command line: run directly, or by ``/bin/sh`` when it uses shell syntax."""
    if _SHELL_SYNTAX.search(command):
        quoted = re.sub(r"\{(\w+)\}", lambda m: shlex.quote(subs[m.group(1)]), command)
        return ["/bin/sh", "-c", quoted]
    return [re.sub(r"\{(\w+)\}", lambda m: subs[m.group(1)], word) for word in shlex.split(command)]


def run_oracle_command(
    case: CrashCase,
    path: Path,
    env: ToolEnv,
    *,
    command: str | None = None,
    timeout: float | None = None,
) -> RunResult:
    """Run one oracle command on a copy of ``path`` in a fresh temporary folder.

    The copy has the original's file name (``case.input_name``); the folder is
    the working directory (``{dir}``).  ``{python}`` is the ``--python``
    interpreter (default: the case's ``tool_python``, or the fixed release's in
    a fixed environment).  A ``--test`` script gets the copy's path as its
    argument; one ending in ``.py`` that is not executable runs with this
    Python, another with ``/bin/sh``.
    """
    oracle = case.oracle
    if timeout is None:
        timeout = oracle.hang if oracle.hang is not None else RUN_TIMEOUT
    with tempfile.TemporaryDirectory(prefix=f"{case.name}-") as tmp:
        folder = Path(tmp)
        candidate = folder / case.input_name
        shutil.copyfile(path, candidate)
        subs = env.substitutions(case)
        subs["python"] = str(env.python)
        if oracle.python is not None and env.python == find_python(case.tool_python):
            subs["python"] = str(find_python(oracle.python))
        subs["file"] = str(candidate)
        subs["dir"] = str(folder)
        if oracle.test is not None:
            script = Path(re.sub(r"\{(\w+)\}", lambda m: subs[m.group(1)], oracle.test))
            if not script.is_absolute():
                script = case.folder / script
            if os.access(script, os.X_OK):
                argv = [str(script)]
            elif script.suffix == ".py":
                argv = [sys.executable, str(script)]
            else:
                argv = ["/bin/sh", str(script)]
            return _run(argv + [str(candidate)], folder, None, timeout)
        assert command is not None or oracle.run is not None
        argv = _command_argv(command or oracle.run or "", subs)
        return _run(argv, folder, candidate if oracle.stdin else None, timeout)


def _signal_matches(wanted: str, got: str | None) -> bool:
    if got is None:
        return False
    if wanted.lower() == "any":
        return True
    wanted = wanted.upper()
    if wanted.isdigit():
        return got in (f"SIG{wanted}", signal.Signals(int(wanted)).name)
    return got == (wanted if wanted.startswith("SIG") else "SIG" + wanted)


def classify(oracle: Oracle, result: RunResult, reference: tuple[str, str] | None = None) -> bool:
    """Whether a run is interesting under the oracle's classification options."""
    if oracle.test is not None and not oracle.classified:
        return not result.timed_out and result.returncode == 0
    if oracle.hang is not None:
        if not result.timed_out:
            return False
    elif result.timed_out:
        return False
    if not oracle.classified:
        return reference is not None and result.signature == reference
    if oracle.signal is not None and not _signal_matches(oracle.signal, result.signal):
        return False
    if oracle.exit_code is not None and (
        result.signal is not None or result.returncode != oracle.exit_code
    ):
        return False
    if oracle.stderr is not None and not re.search(oracle.stderr, result.stderr, re.MULTILINE):
        return False
    return (
        oracle.stdout is None or re.search(oracle.stdout, result.stdout, re.MULTILINE) is not None
    )


@dataclasses.dataclass
class Evaluation:
    """One oracle evaluation of a file."""

    interesting: bool
    matches_signature: bool
    results: list[RunResult]

    @property
    def reproduces(self) -> bool:
        return self.interesting and self.matches_signature

    @property
    def seconds(self) -> float:
        return sum(result.seconds for result in self.results)

    @property
    def cpu_seconds(self) -> float:
        return sum(result.cpu_seconds for result in self.results)

    def describe(self) -> str:
        parts = []
        for result in self.results:
            last = result.last_stderr_line
            parts.append(f"{result.status}" + (f": {last[:160]}" if last else ""))
        return "; ".join(parts)


def evaluate(
    case: CrashCase, path: Path, env: ToolEnv, reference: tuple[str, str] | None = None
) -> Evaluation:
    """Run the case's oracle on ``path``; also check ``expect_signature``."""
    oracle = case.oracle
    if oracle.differential is not None:
        first = run_oracle_command(case, path, env, command=oracle.differential[0])
        second = run_oracle_command(case, path, env, command=oracle.differential[1])
        differ = (first.stdout, first.status) != (second.stdout, second.status)
        both = f"{first.text()}\n{second.text()}"
        matched = bool(re.search(case.expect_signature, both, re.MULTILINE))
        return Evaluation(differ, matched, [first, second])
    result = run_oracle_command(case, path, env)
    interesting = classify(oracle, result, reference)
    matched = bool(re.search(case.expect_signature, result.text(), re.MULTILINE))
    return Evaluation(interesting, matched, [result])


def reproduces(case: CrashCase, path: Path | str, env: ToolEnv) -> tuple[bool, str]:
    """Whether ``path`` still crashes the way the case does (interesting + ``expect_signature``).

    For an oracle without classification options, the reference signature is
    the case's own input's (built into a temporary folder).

    Returns:
        ``(ok, what happened)``.
    """
    reference = None
    if not case.oracle.classified and case.oracle.test is None and case.oracle.differential is None:
        with tempfile.TemporaryDirectory(prefix=f"{case.name}-ref-") as tmp:
            original = materialise(case, tmp)
            reference = evaluate(case, original, env).results[0].signature
    got = evaluate(case, Path(path), env, reference)
    return got.reproduces, got.describe()


# ------------------------------------------------------------------------ checker


@dataclasses.dataclass
class CheckRow:
    name: str
    kind: str
    tool: str
    fixed_in: str
    lines: int = 0
    tokens: int = 0
    min_tokens: int = 0
    max_tokens: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    venv_seconds: float = 0.0
    venv_cached: bool = True
    skipped: str = ""
    reduced_tokens: int | None = None
    reduce_tests: int | None = None
    reduce_seconds: float | None = None
    problems: list[str] = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _check_toml_parsers(case: CrashCase) -> list[str]:
    if sys.version_info >= (3, 11):
        import tomllib

        text = (case.folder / "case.toml").read_text(encoding="utf-8")
        if _parse_toml_subset(text) != tomllib.loads(text):
            return ["case.toml reads differently without tomllib (Python 3.10)"]
    return []


def reduce_case(
    case: CrashCase, source: Path, env: ToolEnv, outdir: Path, *, python: str = sys.executable
) -> tuple[Path, dict[str, Any]]:
    """Run ``astreduce reduce`` (as ``python -m astreduce``) on ``source`` with the case's oracle.

    Returns:
        The output file and the JSON report.

    Raises:
        RuntimeError: astreduce did not exit 0.
    """
    output = outdir / f"{case.name}.reduced.py"
    report = outdir / f"{case.name}.report.json"
    command = [python, "-m", "astreduce", "reduce", str(source), *resolve_args(case, env)]
    command += ["-o", str(output), "--report", str(report), "-q"]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        check=False,
        cwd=source.parent,
        stdin=subprocess.DEVNULL,
    )
    if done.returncode != 0:
        raise RuntimeError(f"astreduce exited {done.returncode}: {done.stderr.strip()[-2000:]}")
    return output, json.loads(report.read_text(encoding="utf-8"))


def check_case(
    case: CrashCase,
    tools_dir: Path | None = None,
    *,
    fixed: bool = True,
    reduce_with: str | None = None,
    keep: Path | None = None,
) -> CheckRow:
    """Build the case and verify it (see the module docstring).

    With ``reduce_with`` (a Python that has astreduce installed), also reduce
    the input and check that the output reproduces within ``max_tokens``; with
    ``keep``, copy the input, the output and the report into that folder.
    """
    row = CheckRow(case.name, case.kind, case.tool, case.fixed_in, max_tokens=case.max_tokens)
    try:
        env = prepare_tool(case, tools_dir)
    except ToolUnavailable as exc:
        row.skipped = str(exc)
        return row
    row.venv_seconds, row.venv_cached = env.create_seconds, env.cached
    problems = row.problems
    with tempfile.TemporaryDirectory(prefix=f"crash-check-{case.name}-") as tmp:
        try:
            path = materialise(case, tmp)
            text = path.read_text(encoding="utf-8")
            row.lines, row.tokens = len(text.splitlines()), token_count(text)
            reference = None
            runs = []
            for attempt in range(3):
                got = evaluate(case, path, env, reference)
                if attempt == 0 and not case.oracle.classified:
                    reference = got.results[0].signature
                    got = evaluate(case, path, env, reference)
                runs.append(got)
                if not got.reproduces:
                    what = "not interesting" if not got.interesting else "no expect_signature match"
                    problems.append(f"input, run {attempt + 1}: {what}: {got.describe()}")
            row.seconds = statistics.median(run.seconds for run in runs)
            row.cpu_seconds = statistics.median(run.cpu_seconds for run in runs)
            control = Path(tmp) / "control.py"
            if control.is_file():
                got = evaluate(case, control, env, reference)
                if got.interesting:
                    problems.append(f"control.py (no trigger) is interesting: {got.describe()}")
            if case.expected_min.is_file():
                minimal = case.expected_min.read_text(encoding="utf-8")
                row.min_tokens = token_count(minimal)
                got = evaluate(case, case.expected_min, env, reference)
                if not got.reproduces:
                    problems.append(f"expected_min.py does not reproduce: {got.describe()}")
                if row.min_tokens > case.max_tokens:
                    problems.append(f"expected_min.py has {row.min_tokens} tokens > max_tokens")
            else:
                problems.append("no expected_min.py")
            if case.max_tokens >= row.tokens:
                problems.append("max_tokens is not below the input's tokens")
            if fixed and case.has_fix_check:
                fixed_env = prepare_tool(case, tools_dir, fixed=True)
                checked = [("input", path)]
                if case.expected_min.is_file():
                    checked.append(("expected_min.py", case.expected_min))
                for what, checked_path in checked:
                    got = evaluate(case, checked_path, fixed_env, reference)
                    if got.interesting or got.matches_signature:
                        problems.append(
                            f"{what}: the fixed release ({case.fixed_in}) crashes too: "
                            + got.describe()
                        )
            problems.extend(_check_toml_parsers(case))
            if reduce_with is not None:
                output, report = reduce_case(case, path, env, Path(tmp), python=reduce_with)
                text = output.read_text(encoding="utf-8")
                if keep is not None:
                    keep.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(path, keep / f"{case.name}.input.py")
                    shutil.copyfile(output, keep / output.name)
                    (keep / f"{case.name}.report.json").write_text(json.dumps(report, indent=1))
                row.reduced_tokens = token_count(text)
                row.reduce_tests = int(report.get("tests", 0))
                row.reduce_seconds = float(report.get("seconds", 0.0))
                ok, what = reproduces(case, output, env)
                if not ok:
                    problems.append(f"astreduce's output does not reproduce: {what}\n{text}")
                if fixed and case.has_fix_check:  # the same bug: the fix cures the output too
                    got = evaluate(case, output, prepare_tool(case, tools_dir, fixed=True))
                    if got.interesting or got.matches_signature:
                        problems.append(
                            f"astreduce's output crashes the fixed release ({case.fixed_in}) too: "
                            + got.describe()
                        )
                if row.reduced_tokens > case.max_tokens:
                    problems.append(
                        f"astreduce's output has {row.reduced_tokens} tokens > max_tokens:\n{text}"
                    )
        except Exception as exc:  # noqa: BLE001  # report every case, whatever breaks
            problems.append(f"{type(exc).__name__}: {exc}")
    return row


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Check that every crash case reproduces.")
    parser.add_argument("names", nargs="*", help="cases to check (default: all)")
    parser.add_argument(
        "--tools", type=Path, default=None, help=f"tool environments folder [{DEFAULT_TOOLS_DIR}]"
    )
    parser.add_argument("--no-fixed", action="store_true", help="skip the fixed-release check")
    parser.add_argument(
        "--reduce",
        metavar="PYTHON",
        help="also reduce each case with 'PYTHON -m astreduce reduce' and check the output",
    )
    parser.add_argument(
        "--keep", type=Path, help="with --reduce: keep inputs, outputs and reports here"
    )
    options = parser.parse_args(argv)
    cases = load_crash_cases()
    if options.names:
        unknown = set(options.names) - {case.name for case in cases}
        if unknown:
            print(f"unknown case(s): {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        cases = [case for case in cases if case.name in options.names]
    tools_dir = options.tools or tools_dir_default()
    print(f"{len(cases)} crash case(s); tool environments in {tools_dir}")
    header = (
        f"{'case':<38} {'kind':<21} {'tool':<15} {'fixed in':<15} {'lines':>5} {'tokens':>6} "
        f"{'min':>3} {'max':>3} {'s/run':>5} {'cpu s':>5} {'venv s':>6}"
    )
    if options.reduce:
        header += f" {'out':>4} {'tests':>5} {'red. s':>6}"
    header += "  ok"
    print(header)
    print("-" * len(header))
    failed = 0
    for case in cases:
        row = check_case(
            case,
            tools_dir,
            fixed=not options.no_fixed,
            reduce_with=options.reduce,
            keep=options.keep,
        )
        mark = "skipped" if row.skipped else ("ok" if row.ok else "FAIL")
        venv = (
            "-"
            if not case.requires
            else f"{row.venv_seconds:.0f}" + ("*" if row.venv_cached else "")
        )
        line = (
            f"{row.name:<38} {row.kind:<21} {row.tool:<15} {row.fixed_in:<15} {row.lines:>5} "
            f"{row.tokens:>6} {row.min_tokens:>3} {row.max_tokens:>3} {row.seconds:>5.2f} "
            f"{row.cpu_seconds:>5.2f} {venv:>6}"
        )
        if options.reduce:
            out = "-" if row.reduced_tokens is None else str(row.reduced_tokens)
            tests = "-" if row.reduce_tests is None else str(row.reduce_tests)
            secs = "-" if row.reduce_seconds is None else f"{row.reduce_seconds:.0f}"
            line += f" {out:>4} {tests:>5} {secs:>6}"
        print(line + f"  {mark}", flush=True)
        if row.skipped:
            print(f"    {row.skipped}")
        for problem in row.problems:
            print("    " + problem.replace("\n", "\n    "))
        failed += not row.ok
    print(
        "s/run: wall seconds of one oracle run on the input (median of 3); cpu s: its CPU time;\n"
        "venv s: seconds it took to create the tool environment (* = it was cached);\n"
        "min/max: tokens of expected_min.py and the ceiling; out/tests/red. s: astreduce's\n"
        "output tokens, oracle tests and seconds (with --reduce)"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
