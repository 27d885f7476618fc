"""Corpora tools: load the cases, materialise their inputs, count tokens, check them all.

Standard library only (no astreduce imports), so that it can check the corpora
under any Python the project supports, independently of the code under test::

    python corpora/tools.py              # check every case
    python corpora/tools.py NAME ...     # check some cases

For every case the check builds or copies the input into a temporary folder,
appends the ``--append`` file if the case has one, and runs the program twice
with the running interpreter, each time from a fresh empty working directory:

1. as a script, verifying that the final traceback line is exactly
   ``EXC: MESSAGE`` (Python 3.10 prints ``__main__.EXC`` for an exception
   class defined in the script itself; that spelling is accepted too);
2. the way astreduce's exec oracle runs a candidate: the text compiled and
   exec'd in a fresh namespace whose ``__name__`` is ``"__main__"`` (so
   ``sys.modules["__main__"]`` is *not* that namespace), verifying that the
   exception's type name and ``str()`` are exactly the target, and for a case
   with ``--same-frame`` that the innermost frame's function name is the
   input's.

It does the same for the case's ``expected_min.py`` (a hand-minimised program
that still raises the target), and checks that its token count is within
``max_tokens`` and that ``max_tokens`` is below the input's token count.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import json
import math
import shutil
import subprocess
import sys
import tempfile
import tokenize
from pathlib import Path

CASES_ROOT = Path(__file__).resolve().parent

KNOWN_KEYS = frozenset({"description", "input", "build", "args", "max_tokens", "slow"})

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

# Seconds a single run of a case (or a build) may take before the check gives up.
RUN_TIMEOUT = 120


@dataclasses.dataclass
class Case:
    """One corpora case, as described by its ``case.toml``."""

    name: str
    folder: Path
    description: str
    args: list[str]
    max_tokens: int
    slow: bool
    input_name: str = "input.py"
    build: str | None = None

    @property
    def expect(self) -> tuple[str, str]:
        """The target exception as ``(type name, message)`` from ``--expect EXC:MESSAGE``."""
        value = _option_value(self.args, "--expect")
        if value is None:
            raise ValueError(f"case {self.name}: args have no --expect")
        exc, _, message = value.partition(":")
        return exc, message

    @property
    def same_frame(self) -> bool:
        """Whether the target also names the innermost frame's function (``--same-frame``)."""
        return "--same-frame" in self.args

    @property
    def append(self) -> str | None:
        """The file named by ``--append``, relative to the case folder, if any."""
        return _option_value(self.args, "--append")

    @property
    def expected_min(self) -> Path:
        """The hand-minimised program that calibrates ``max_tokens``."""
        return self.folder / "expected_min.py"


def _option_value(args: list[str], option: str) -> str | None:
    for index, arg in enumerate(args):
        if arg == option and index + 1 < len(args):
            return args[index + 1]
        if arg.startswith(option + "="):
            return arg[len(option) + 1 :]
    return None


def _parse_toml_subset(text: str) -> dict[str, object]:
    """Parse the flat TOML that case files use, for Pythons without ``tomllib`` (3.10).

    Supports ``key = value`` lines whose value is a basic string, an integer, a
    boolean or an array of strings (an array may span lines), and ``#``
    comments.  ``check_case`` compares it with ``tomllib`` where that exists.
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
    """Drop a trailing ``# comment`` that is outside any string."""
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


def load_case(folder: Path) -> Case:
    """Load the case in ``folder`` (which holds ``case.toml``)."""
    data = read_toml(folder / "case.toml")
    unknown = set(data) - KNOWN_KEYS
    if unknown:
        raise ValueError(f"{folder.name}/case.toml: unknown keys {sorted(unknown)}")
    args = data.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise TypeError(f"{folder.name}/case.toml: args must be a list of strings")
    max_tokens = data.get("max_tokens")
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool):
        raise TypeError(f"{folder.name}/case.toml: max_tokens must be an integer")
    slow = data.get("slow", False)
    if not isinstance(slow, bool):
        raise TypeError(f"{folder.name}/case.toml: slow must be true or false")
    build = data.get("build")
    return Case(
        name=folder.name,
        folder=folder,
        description=str(data.get("description", "")),
        args=list(args),
        max_tokens=max_tokens,
        slow=slow,
        input_name=str(data.get("input", "input.py")),
        build=None if build is None else str(build),
    )


def load_cases(root: Path | str = CASES_ROOT) -> list[Case]:
    """Every case under ``root`` (a folder per case, holding ``case.toml``), sorted by name."""
    root = Path(root)
    # crash_* cases hold command oracles and tool pins: corpora/crash_tools.py reads those
    return [
        load_case(toml.parent)
        for toml in sorted(root.glob("*/case.toml"))
        if not toml.parent.name.startswith("crash_")
    ]


def materialise(case: Case, outdir: Path | str) -> Path:
    """Put the case's input (and every file its args name) into ``outdir``.

    A case with ``build`` runs that script with the current interpreter as
    ``python build.py OUTDIR``; otherwise the input is copied.  Files named in
    ``args`` that exist in the case folder (such as the ``--append`` script)
    are copied unless the build already wrote them.

    Returns:
        The path of the input inside ``outdir``.
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
            raise RuntimeError(f"{case.name}: {case.build} failed:\n{done.stderr.strip()}")
        if not target.is_file():
            raise RuntimeError(f"{case.name}: {case.build} did not write {case.input_name}")
    else:
        shutil.copyfile(case.folder / case.input_name, target)
    for arg in case.args:
        source = case.folder / arg
        if not arg.startswith("-") and source.is_file() and not (outdir / arg).exists():
            (outdir / arg).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, outdir / arg)
    return target


def token_count(text: str) -> int:
    """The number of Python tokens in ``text`` as docs/results.md counts them."""
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    return sum(1 for token in tokens if token.type not in _NOT_COUNTED)


def line_count(text: str) -> int:
    return len(text.splitlines())


def with_append(text: str, appended: str | None) -> str:
    """The program that runs: the module text, then the appended test script."""
    if appended is None:
        return text
    if text and not text.endswith("\n"):
        text += "\n"
    return text + appended


def max_tokens_for(min_tokens: int) -> int:
    """The ceiling rule: about 1.5 times the hand-minimised size, and at least 10 more."""
    return max(math.ceil(min_tokens * 1.5), min_tokens + 10)


# The exec-oracle imitation: compile and exec the text as __main__ in a fresh
# namespace, then write the exception's type name, str() and innermost frame's
# function name to a result file.
_EXEC_RUNNER = r"""
import json, sys, traceback
path, result = sys.argv[1], sys.argv[2]
with open(path, encoding="utf-8") as handle:
    source = handle.read()
namespace = {"__name__": "__main__", "__builtins__": __builtins__}
outcome = {"type": None, "message": None, "frame": None}
try:
    exec(compile(source, path, "exec"), namespace)
except BaseException as exc:
    frames = traceback.extract_tb(exc.__traceback__)
    outcome = {"type": type(exc).__name__, "message": str(exc), "frame": frames[-1].name}
with open(result, "w", encoding="utf-8") as handle:
    json.dump(outcome, handle)
"""


@dataclasses.dataclass
class RunResult:
    ok: bool
    detail: str
    frame: str | None = None  # innermost frame's function name when exec'd


def run_program(program: str, expect: tuple[str, str], frame: str | None = None) -> RunResult:
    """Run ``program`` as a script and through the exec imitation; compare with ``expect``.

    With ``frame``, the exception exec'd as ``__main__`` must also come from a
    function of that name (``--same-frame``).
    """
    exc, message = expect
    wanted = {f"{exc}: {message}" if message else exc}
    wanted |= {f"__main__.{line}" for line in wanted}
    with tempfile.TemporaryDirectory(prefix="corpora-run-") as tmp:
        path = Path(tmp) / "program.py"
        path.write_text(program, encoding="utf-8")
        workdir = Path(tmp) / "cwd"
        workdir.mkdir()
        script = subprocess.run(
            [sys.executable, str(path)],
            check=False,
            capture_output=True,
            text=True,
            cwd=workdir,
            timeout=RUN_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
    lines = script.stderr.strip().splitlines()
    last = lines[-1] if lines else "(no exception)"
    if last not in wanted:
        return RunResult(False, f"as a script, the final traceback line is {last!r}")
    got = exec_outcome(program)
    if (got["type"], got["message"]) != (exc, message):
        return RunResult(False, f"exec'd as __main__, it raised {got['type']}: {got['message']}")
    if frame is not None and got["frame"] != frame:
        return RunResult(
            False, f"exec'd as __main__, it raised in {got['frame']!r}, not in {frame!r}"
        )
    return RunResult(True, "", got["frame"])


def exec_outcome(program: str) -> dict[str, str | None]:
    """Exec ``program`` as ``__main__`` (as the exec oracle does), from an empty folder.

    Returns:
        The exception's ``type`` name, ``message`` (its ``str()``) and innermost
        ``frame``'s function name; all ``None`` when it raised nothing.
    """
    with tempfile.TemporaryDirectory(prefix="corpora-exec-") as tmp:
        path = Path(tmp) / "program.py"
        path.write_text(program, encoding="utf-8")
        workdir = Path(tmp) / "cwd"
        workdir.mkdir()
        result = Path(tmp) / "result.json"
        subprocess.run(
            [sys.executable, "-c", _EXEC_RUNNER, str(path), str(result)],
            check=False,
            capture_output=True,
            text=True,
            cwd=workdir,
            timeout=RUN_TIMEOUT,
            stdin=subprocess.DEVNULL,
        )
        got: dict[str, str | None] = json.loads(result.read_text(encoding="utf-8"))
    return got


@dataclasses.dataclass
class CheckRow:
    name: str
    lines: int
    tokens: int
    min_tokens: int
    max_tokens: int
    problems: list[str]

    @property
    def ok(self) -> bool:
        return not self.problems


def _check_toml_parsers(case: Case) -> list[str]:
    """Where ``tomllib`` exists, the 3.10 fallback parser must read the case file the same."""
    if sys.version_info >= (3, 11):
        import tomllib

        text = (case.folder / "case.toml").read_text(encoding="utf-8")
        if _parse_toml_subset(text) != tomllib.loads(text):
            return ["case.toml reads differently without tomllib (Python 3.10)"]
    return []


def _module_alone_problems(what: str, module: str) -> list[str]:
    """For an ``--append`` case: the module without its test must run without an exception."""
    got = exec_outcome(module)
    if got["type"] is None:
        return []
    return [f"{what} raises {got['type']}: {got['message']} without the appended test"]


def check_case(case: Case) -> CheckRow:
    """Materialise one case and verify it and its ``expected_min.py``."""
    problems: list[str] = []
    lines = tokens = min_tokens = 0
    with tempfile.TemporaryDirectory(prefix=f"corpora-{case.name}-") as tmp:
        try:
            expect = case.expect
            path = materialise(case, tmp)
            text = path.read_text(encoding="utf-8")
            appended = None
            if case.append is not None:
                appended = (Path(tmp) / case.append).read_text(encoding="utf-8")
            lines, tokens = line_count(text), token_count(text)
            result = run_program(with_append(text, appended), expect)
            if not result.ok:
                problems.append(f"input: {result.detail}")
            frame = result.frame if case.same_frame else None
            if appended is not None:
                # The target must come from the appended test, never from the module alone.
                problems.extend(_module_alone_problems("input", text))
            if case.expected_min.is_file():
                minimal = case.expected_min.read_text(encoding="utf-8")
                min_tokens = token_count(minimal)
                result = run_program(with_append(minimal, appended), expect, frame)
                if appended is not None:
                    problems.extend(_module_alone_problems("expected_min.py", minimal))
                if not result.ok:
                    problems.append(f"expected_min.py: {result.detail}")
                if min_tokens > case.max_tokens:
                    problems.append(f"expected_min.py has {min_tokens} tokens > max_tokens")
            else:
                problems.append("no expected_min.py")
            if case.max_tokens >= tokens:
                problems.append("max_tokens is not below the input's tokens")
            if not 20 <= lines <= 3000:
                problems.append(f"input has {lines} lines, outside 20..3000")
            if not case.description:
                problems.append("no description")
            problems.extend(_check_toml_parsers(case))
        except Exception as exc:  # noqa: BLE001  # report every case, whatever breaks
            problems.append(f"{type(exc).__name__}: {exc}")
    return CheckRow(case.name, lines, tokens, min_tokens, case.max_tokens, problems)


def main(argv: list[str]) -> int:
    cases = load_cases()
    if argv:
        unknown = set(argv) - {case.name for case in cases}
        if unknown:
            print(f"unknown case(s): {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        cases = [case for case in cases if case.name in argv]
    version = ".".join(map(str, sys.version_info[:3]))
    print(f"Python {version}: {len(cases)} case(s)")
    header = f"{'name':<22} {'lines':>6} {'tokens':>7} {'min':>5} {'max':>5}  ok"
    print(header)
    print("-" * len(header))
    failed = 0
    for case in cases:
        row = check_case(case)
        mark = "ok" if row.ok else "FAIL"
        print(
            f"{row.name:<22} {row.lines:>6} {row.tokens:>7} {row.min_tokens:>5} {row.max_tokens:>5}  {mark}"
        )
        for problem in row.problems:
            print(f"    {problem}")
        failed += not row.ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
