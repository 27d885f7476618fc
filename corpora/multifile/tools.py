"""Multi-file corpora: load the cases, materialise them, run their oracle, check them all.

Standard library only (no astreduce import), like ``corpora/tools.py``, whose
TOML reader and token count it borrows::

    python corpora/multifile/tools.py            # check every case
    python corpora/multifile/tools.py NAME ...   # check some cases

For every case the check copies the input tree into a temporary folder and
verifies that

1. the package holds at least 5 modules and 1,000 lines (issue 8's size);
2. the oracle (``--test SCRIPT``: ``python SCRIPT TREE`` from a copy of the
   tree, exit 0 = interesting) finds the input interesting, three times;
3. with the fault undone (``fix``: one exact text replacement in one file),
   the input is no longer interesting: the failure depends on the fault;
4. without any one of the ``needed`` modules the input is not interesting;
   (a case with ``build`` is made at check time from the running interpreter's
   standard library: ``python BUILD OUTDIR`` writes ``OUTDIR/input/``);
5. ``expected_min/`` (a hand-minimised tree) is interesting, has at most
   ``max_files`` files and at most ``max_tokens`` tokens, and none of the
   ``unneeded`` files;
6. ``max_tokens`` is below the input's tokens.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent
RUN_TIMEOUT = 120
KNOWN_KEYS = frozenset({"description", "input", "build", "args", "max_files", "max_tokens", "needed", "unneeded", "fix", "slow"})
MIN_MODULES = 5
MIN_LINES = 1000


def _corpora_tools() -> ModuleType:
    spec = importlib.util.spec_from_file_location("corpora_tools_for_multifile", ROOT.parent / "tools.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


_TOOLS = _corpora_tools()
token_count = _TOOLS.token_count


@dataclasses.dataclass
class Case:
    """One multi-file case, as described by its ``case.toml``."""

    name: str
    folder: Path
    description: str
    input: str
    args: list[str]
    max_files: int
    max_tokens: int
    needed: list[str]
    unneeded: list[str]
    fix: list[str]
    slow: bool
    build: str = ""
    """A script that writes the input tree (``python BUILD OUTDIR`` writes ``OUTDIR/input/``), for a case
    made from the running interpreter's standard library; otherwise the tree is the folder ``input``."""

    @property
    def script(self) -> str:
        """The ``--test`` script, relative to the case folder."""
        if self.args[:1] != ["--test"] or len(self.args) != 2:
            raise ValueError(f"{self.name}: only args = [\"--test\", SCRIPT] are supported")
        return self.args[1]


def load_cases(root: Path | str = ROOT) -> list[Case]:
    cases = []
    for toml in sorted(Path(root).glob("*/case.toml")):
        data = _TOOLS.read_toml(toml)
        unknown = set(data) - KNOWN_KEYS
        if unknown:
            raise ValueError(f"{toml.parent.name}/case.toml: unknown keys {sorted(unknown)}")
        cases.append(
            Case(
                name=toml.parent.name,
                folder=toml.parent,
                description=str(data.get("description", "")),
                input=str(data.get("input", "input")),
                args=list(data["args"]),
                max_files=int(data["max_files"]),
                max_tokens=int(data["max_tokens"]),
                needed=list(data.get("needed", [])),
                unneeded=list(data.get("unneeded", [])),
                fix=list(data["fix"]),
                slow=bool(data.get("slow", False)),
                build=str(data.get("build", "")),
            )
        )
    return cases


def read_tree(folder: Path) -> dict[str, str]:
    """The files under ``folder``; astreduce's mark of a result tree (``.astreduce-output``) is no part of it."""
    return {
        p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(folder.rglob("*")) if p.is_file() and p.name != ".astreduce-output"
    }


def write_tree(folder: Path, tree: dict[str, str]) -> Path:
    for path, text in tree.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return folder


def materialise(case: Case, outdir: Path | str) -> Path:
    """Copy (or build) the input tree to ``outdir/input`` and the oracle script beside it; return the tree."""
    outdir = Path(outdir)
    if case.build:
        outdir.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, str(case.folder / case.build), str(outdir)], check=True, timeout=RUN_TIMEOUT)
    else:
        shutil.copytree(case.folder / case.input, outdir / "input")
    shutil.copyfile(case.folder / case.script, outdir / case.script)
    return outdir / "input"


def original_tree(case: Case) -> dict[str, str]:
    """The case's input tree, built for the running interpreter when the case has a build script."""
    if not case.build:
        return read_tree(case.folder / case.input)
    with tempfile.TemporaryDirectory(prefix=f"multifile-{case.name}-") as tmp:
        return read_tree(materialise(case, tmp))


def resolve_args(case: Case, outdir: Path | str) -> list[str]:
    """The case's ``astreduce reduce`` options with the script inside ``outdir``."""
    return ["--test", str(Path(outdir) / case.script)]


def interesting(case: Case, tree: Path | dict[str, str]) -> bool:
    """Whether the oracle finds ``tree`` (a folder, or files by path) interesting; it runs on a copy."""
    files = read_tree(tree) if isinstance(tree, Path) else tree
    with tempfile.TemporaryDirectory(prefix=f"multifile-{case.name}-") as tmp:
        copy = write_tree(Path(tmp) / "tree", files)
        done = subprocess.run(
            [sys.executable, str(case.folder / case.script), str(copy)],
            cwd=copy, capture_output=True, timeout=RUN_TIMEOUT, stdin=subprocess.DEVNULL, check=False,
        )
    return done.returncode == 0


def tokens(tree: dict[str, str]) -> int:
    return sum(token_count(text) for path, text in tree.items() if path.endswith(".py"))


def check_case(case: Case) -> list[str]:
    problems: list[str] = []
    original = original_tree(case)
    package = {p: t for p, t in original.items() if p.endswith(".py") and not p.startswith("tests/")}
    lines = sum(len(t.splitlines()) for t in package.values())
    if len(package) < MIN_MODULES or lines < MIN_LINES:
        problems.append(f"the package has {len(package)} modules and {lines} lines; needs {MIN_MODULES} and {MIN_LINES}")
    for run in range(3):
        if not interesting(case, original):
            problems.append(f"input: not interesting (run {run + 1})")
            break
    path, old, new = case.fix
    if original.get(path, "").count(old) != 1:
        problems.append(f"fix: {old!r} does not occur exactly once in {path}")
    elif interesting(case, {**original, path: original[path].replace(old, new)}):
        problems.append("input with the fault undone is still interesting")
    for module in case.needed:
        if interesting(case, {p: t for p, t in original.items() if p != module}):
            problems.append(f"input without {module} is still interesting")
    minimal = read_tree(case.folder / "expected_min")
    if not interesting(case, minimal):
        problems.append("expected_min: not interesting")
    if len(minimal) > case.max_files:
        problems.append(f"expected_min has {len(minimal)} files > max_files")
    if tokens(minimal) > case.max_tokens:
        problems.append(f"expected_min has {tokens(minimal)} tokens > max_tokens")
    if set(minimal) & set(case.unneeded):
        problems.append(f"expected_min holds unneeded files {sorted(set(minimal) & set(case.unneeded))}")
    if case.max_tokens >= tokens(original):
        problems.append("max_tokens is not below the input's tokens")
    if not case.description:
        problems.append("no description")
    return problems


def main(argv: list[str]) -> int:
    cases = [c for c in load_cases() if not argv or c.name in argv]
    print(f"Python {'.'.join(map(str, sys.version_info[:3]))}: {len(cases)} case(s)")
    failed = 0
    for case in cases:
        problems = check_case(case)
        original = original_tree(case)
        minimal = read_tree(case.folder / "expected_min")
        print(
            f"{case.name}: {len(original)} files, {tokens(original)} tokens; expected_min {len(minimal)} files, "
            f"{tokens(minimal)} tokens; max {case.max_files} files, {case.max_tokens} tokens  {'FAIL' if problems else 'ok'}"
        )
        for problem in problems:
            print(f"    {problem}")
        failed += bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
