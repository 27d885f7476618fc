"""Build and check the cases of ``astreduce isolate``: two releases of one module and a check.

Usage::

    python corpora/isolate/build.py CASE OUTDIR    # OUTDIR/old/MODULE, OUTDIR/new/MODULE, OUTDIR/check.py
    python corpora/isolate/build.py --check [CASE ...]

A case is a folder here holding ``case.toml`` and ``check.py``, the check
that is appended to both versions (``--append check.py``) and run in the
module's namespace. Its OLD and NEW versions are either

* two releases of a standard-library module (``module``, ``old``, ``new``:
  exact Python versions), copied at build time from the Python versions
  installed through pyenv (``$PYENV_ROOT/versions/X.Y.Z/lib/pythonX.Y/``), or
* ``old.py`` and ``new.py`` in the case folder (no ``old``/``new`` keys).

Both versions run under one interpreter, the one running the build or the
tests: the module's text is exec'd from the candidate file, never imported
from the interpreter's own standard library. Each release's
``if __name__ == "__main__":`` block is cut (the exec oracle runs a
candidate as ``__main__``, and statistics' block runs its doctests for ten
seconds); nothing else is changed.

``case.toml`` keys: ``description``; ``module`` (the file name; for a release,
its path in the standard library); ``old``, ``new`` (Python versions);
``expect`` (``EXC:MESSAGE``, what NEW + check raises); ``min_python`` (the
oldest interpreter that can run both versions); ``contains`` (lines that
the isolated patch must hold).

``--check`` builds every case (or those named) into a temporary folder and
runs OLD + check and NEW + check the way the exec oracle does — compiled and
exec'd as ``__main__`` in a fresh process, from an empty working directory —
verifying that OLD raises nothing and NEW raises exactly ``expect``. It uses
the standard library only, so it runs under any Python::

    for v in 3.10.13 3.11.7 3.12.1 3.13.0; do PYENV_VERSION=$v python corpora/isolate/build.py --check; done
"""

from __future__ import annotations

import ast
import dataclasses
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


class MissingRelease(Exception):
    """A Python version a case needs is not installed, or too old to run the case."""


@dataclasses.dataclass
class Case:
    """One isolation case, as described by its ``case.toml``."""

    name: str
    folder: Path
    description: str
    module: str
    expect: str
    min_python: tuple[int, int]
    contains: list[str]
    old: str | None = None
    new: str | None = None

    @property
    def is_release(self) -> bool:
        """Built from two standard-library releases (else from old.py and new.py)."""
        return self.old is not None

    @property
    def expect_type(self) -> str:
        return self.expect.partition(":")[0]

    @property
    def expect_message(self) -> str:
        return self.expect.partition(":")[2]


def _read_toml(path: Path) -> dict[str, object]:
    """Flat ``key = literal`` lines (strings, arrays of strings) — what case files use."""
    text = path.read_text(encoding="utf-8")
    if sys.version_info >= (3, 11):
        import tomllib

        return dict(tomllib.loads(text))
    result: dict[str, object] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, sep, value = (part.strip() for part in line.partition("="))
        if not sep:
            raise ValueError(f"{path}:{lineno}: expected key = value")
        result[key] = ast.literal_eval(value)
    return result


def load_case(folder: Path) -> Case:
    data = _read_toml(folder / "case.toml")
    major, minor = (int(part) for part in str(data.get("min_python", "3.10")).split(".")[:2])
    contains = data.get("contains", [])
    if not isinstance(contains, list):
        raise TypeError(f"{folder}/case.toml: contains must be a list of strings")
    return Case(
        name=folder.name,
        folder=folder,
        description=str(data["description"]),
        module=str(data["module"]),
        expect=str(data["expect"]),
        min_python=(major, minor),
        contains=[str(item) for item in contains],
        old=str(data["old"]) if "old" in data else None,
        new=str(data["new"]) if "new" in data else None,
    )


def load_cases() -> list[Case]:
    """Every case folder here, sorted by name."""
    return [load_case(toml.parent) for toml in sorted(HERE.glob("*/case.toml"))]


def pyenv_root() -> Path:
    return Path(os.environ.get("PYENV_ROOT") or Path.home() / ".pyenv")


def release_path(version: str, module: str) -> Path:
    """The module's file in an installed Python release.

    Raises:
        MissingRelease: that Python is not installed through pyenv.
    """
    minor = ".".join(version.split(".")[:2])
    path = pyenv_root() / "versions" / version / "lib" / f"python{minor}" / module
    if not path.is_file():
        raise MissingRelease(f"Python {version} is not installed through pyenv (no {path})")
    return path


def strip_main_blocks(text: str) -> str:
    """Cut every top-level ``if __name__ == "__main__":`` block out of a module's text."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    for node in reversed(tree.body):
        if (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Compare)
            and isinstance(node.test.left, ast.Name)
            and node.test.left.id == "__name__"
        ):
            assert node.end_lineno is not None
            del lines[node.lineno - 1 : node.end_lineno]
    return "".join(lines)


def build(case: Case, outdir: str | Path) -> tuple[Path, Path, Path]:
    """Write ``outdir/old/MODULE``, ``outdir/new/MODULE`` and ``outdir/check.py``.

    Raises:
        MissingRelease: a release is not installed, or the running Python is
            older than the case's ``min_python``.
    """
    if sys.version_info[:2] < case.min_python:
        raise MissingRelease(
            f"case {case.name} needs Python {'.'.join(map(str, case.min_python))} or newer to run both "
            f"versions; this is {sys.version.split()[0]}"
        )
    out = Path(outdir)
    name = Path(case.module).name
    paths = []
    for side, version in (("old", case.old), ("new", case.new)):
        if version is not None:
            text = strip_main_blocks(release_path(version, case.module).read_text(encoding="utf-8"))
        else:
            text = (case.folder / f"{side}.py").read_text(encoding="utf-8")
        target = out / side / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        paths.append(target)
    check = out / "check.py"
    check.write_text((case.folder / "check.py").read_text(encoding="utf-8"), encoding="utf-8")
    return paths[0], paths[1], check


# Runs a program the way the exec oracle does and prints how it ended.
_RUNNER = """
import sys, types
path = sys.argv[1]
source = open(path, encoding="utf-8").read()
module = types.ModuleType("__main__")
module.__file__ = path
module.__dict__["__builtins__"] = __builtins__
sys.modules["__main__"] = module
try:
    exec(compile(source, path, "exec", dont_inherit=True), module.__dict__)
except BaseException as error:
    sys.stdout.write("\\nRAISED %s:%s" % (type(error).__name__, error))
else:
    sys.stdout.write("\\nRAISED nothing")
"""


def run(program: Path) -> str:
    """``TYPE:MESSAGE`` of what ``program`` raises when exec'd as ``__main__``, or ``nothing``."""
    with tempfile.TemporaryDirectory() as empty:
        done = subprocess.run(
            [sys.executable, "-c", _RUNNER, str(program)],
            check=False,
            cwd=empty,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
    marker = done.stdout.rfind("\nRAISED ")
    if marker < 0:
        return f"crash (status {done.returncode}): {done.stderr.strip()[-300:]}"
    return done.stdout[marker + len("\nRAISED ") :]


def check_case(case: Case) -> list[str]:
    """Problems with a case: OLD + check must raise nothing, NEW + check exactly ``expect``."""
    problems = []
    with tempfile.TemporaryDirectory() as folder:
        old, new, check = build(case, folder)
        for side, path, wanted in (("OLD", old, "nothing"), ("NEW", new, case.expect)):
            program = Path(folder) / f"{side.lower()}_program.py"
            program.write_text(path.read_text(encoding="utf-8") + "\n" + check.read_text(encoding="utf-8"), encoding="utf-8")
            got = run(program)
            if got != wanted:
                problems.append(f"{case.name}: {side} + check raised {got!r}, expected {wanted!r}")
    return problems


def main(argv: list[str]) -> int:
    if argv[:1] == ["--check"]:
        cases = load_cases()
        named = set(argv[1:])
        problems: list[str] = []
        for case in cases:
            if named and case.name not in named:
                continue
            try:
                found = check_case(case)
            except MissingRelease as missing:
                print(f"skip {case.name}: {missing}")
                continue
            problems += found
            print(f"{'FAIL' if found else 'ok  '} {case.name}")
        for problem in problems:
            print(problem, file=sys.stderr)
        return 1 if problems else 0
    if len(argv) != 2:
        print(f"usage: {sys.argv[0]} CASE OUTDIR | --check [CASE ...]", file=sys.stderr)
        return 2
    try:
        paths = build(load_case(HERE / argv[0]), argv[1])
    except MissingRelease as missing:
        print(f"cannot build: {missing}", file=sys.stderr)
        return 3
    for path in paths:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
