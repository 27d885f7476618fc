"""The project a failing node lives in: its files, its interpreter, and what the node imports.

``astreduce pytest NODEID`` reduces a *project*, not a file. This module
reads it once:

* the project's folder: ``--root``, else the nearest folder above the node's
  file holding one of :data:`ROOT_MARKERS` (a newcomer runs it from anywhere);
* the node id, checked and made relative to the project's folder;
* the interpreter that runs the project's tests: ``--python``, else the
  project's own virtual environment (``.venv/bin/python`` or
  ``venv/bin/python`` at its root) when it has pytest, else astreduce's;
* every file of the project (version control, caches and virtual
  environments left out): the tree that is reduced. Files may go whole,
  but only the *reduced* ones change inside: the node's test file, the
  project's modules it imports (followed recursively, as the interpreter
  would find them under the project's folder, never site-packages), and
  the ``conftest.py`` files on the way from the root to the test, or the
  files ``--reduce`` names;
* the third-party modules those files import, for the warm pytest to load
  once (:mod:`astreduce.pytest_node.zygote`).
"""

from __future__ import annotations

import ast
import importlib.util
import os
import stat
import subprocess
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from astreduce.errors import UsageError
from astreduce.files import OUTPUT_MARK, SKIPPED_DIRS, SKIPPED_SUFFIXES, is_output_folder
from astreduce.interpreters import resolve_python
from astreduce.source.imports import absolute, parse_module

#: Folders never read as part of a project (besides :data:`~astreduce.files.SKIPPED_DIRS`).
NOT_PROJECT = frozenset({"venv", "node_modules", ".eggs", "site-packages"})

#: More files (or bytes) than this, and only the reduced files and configuration are in the tree:
#: the rest is copied as it is into every test's folder and into the output.
TREE_FILES, TREE_BYTES = 2000, 20 << 20

#: What marks a project's root, nearest first, as pytest and the packaging tools find it.
ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "pytest.ini", "tox.ini", ".git")
#: What a JSON report astreduce wrote holds near its start: such a file is never part of a project.
REPORT_MARK = '"astreduce_version"'
#: Files whose presence shapes how pytest starts.
CONFIG_FILES = frozenset({"pytest.ini", ".pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"})


@dataclass
class Project:
    """A project and one failing node in it, read from disk."""

    root: Path
    nodeid: str
    """The node id, its file relative to :attr:`root`."""
    python: str
    python_origin: str
    """Why this interpreter: ``--python``, ``the project's .venv``, ``astreduce's own``."""
    tree: dict[str, str]
    """The files that may be reduced or deleted (relative path → text)."""
    reduced: frozenset[str]
    """The files of the tree whose text is reduced (the rest are only kept or deleted)."""
    fixed: dict[str, str] = field(default_factory=dict)
    """Files kept as they are, outside the tree (a large project's rest)."""
    modes: dict[str, int] = field(default_factory=dict)
    imports: tuple[str, ...] = ()
    """Modules the reduced files import from outside the project."""
    root_origin: str = "--root"
    """Why this folder: ``--root``, ``its pyproject.toml`` (the nearest marker above the node's file), or
    ``the working directory``."""

    @property
    def test_file(self) -> str:
        return self.nodeid.partition("::")[0]

    @property
    def test(self) -> str:
        """The node's part after the file: ``Class::test[param]``."""
        return self.nodeid.partition("::")[2]


def split_nodeid(nodeid: str) -> tuple[str, str]:
    """``path/test_x.py::Class::test[p]`` → (``path/test_x.py``, ``Class::test[p]``).

    Raises:
        UsageError: not a node id.
    """
    path, sep, rest = nodeid.partition("::")
    if not sep or not rest or not path.endswith(".py"):
        raise UsageError(f"{nodeid!r} is not a test's node id (FILE.py::TEST, as pytest prints it)")
    return Path(path).as_posix(), rest


def find_root(test_path: str) -> tuple[Path, str]:
    """The project's folder for a node's file (relative to the working directory): the nearest folder above
    it holding one of :data:`ROOT_MARKERS`, and why (``its pyproject.toml``); else the working directory."""
    here = Path.cwd()
    path = (here / test_path).resolve()
    if path.is_file():
        for folder in path.parents:
            marker = next((m for m in ROOT_MARKERS if (folder / m).exists()), None)
            if marker is not None:
                return folder, f"its {marker}"
    return here, "the working directory"


def has_pytest(python: str) -> bool:
    """Whether ``python`` can import pytest."""
    if python == sys.executable:
        return importlib.util.find_spec("pytest") is not None
    try:
        return subprocess.run([python, "-c", "import pytest"], capture_output=True, timeout=120, check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def project_python(root: Path, spec: str | None) -> tuple[str, str]:
    """The interpreter that runs the project's tests, and why that one: ``--python``, else the project's
    virtual environment when it has pytest, else astreduce's own (its ``[pytest]`` extra brings pytest).

    Raises:
        UsageError: neither the project's environment nor astreduce's own has pytest.
    """
    if spec:
        return resolve_python(spec), "--python"
    without = ""
    for folder in (".venv", "venv"):
        candidate = root / folder / "bin" / "python"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            if has_pytest(str(candidate)):
                return str(candidate), f"the project's {folder}"
            without = f"; the project's {folder} has no pytest"
            break
    if not has_pytest(sys.executable):
        raise UsageError(
            f"pytest is not installed under astreduce's own interpreter {sys.executable}{without}: install "
            "astreduce with its pytest extra (pip install 'astreduce[pytest]'), or name an interpreter that "
            "has pytest with --python"
        )
    return sys.executable, f"astreduce's own{without}"


def _written_by_astreduce(path: Path) -> bool:
    """A JSON report astreduce wrote (this run's or an earlier one's): never a project file."""
    if path.suffix != ".json":
        return False
    try:
        with open(path, "rb") as file:
            return REPORT_MARK.encode() in file.read(1 << 16)
    except OSError:
        return False


def _is_environment(folder: Path) -> bool:
    return (folder / "pyvenv.cfg").is_file()


def read_project_files(
    root: Path, outdir: Path | None = None, written: Iterable[Path] = (),
) -> tuple[dict[str, str], dict[str, int]]:
    """Every file of the project: texts (bytes kept through ``surrogateescape``) and modes. What astreduce
    writes is never part of it: ``outdir``, the files ``written`` (the report, the bug report), and an earlier
    run's JSON report and output folder (whatever their names)."""
    files: dict[str, str] = {}
    modes: dict[str, int] = {}
    skip_out = outdir.resolve() if outdir is not None else None
    skipped = {path.resolve() for path in written}
    for directory, folders, names in os.walk(root):
        here = Path(directory)
        folders[:] = sorted(
            f for f in folders
            if f not in SKIPPED_DIRS and f not in NOT_PROJECT and not f.endswith(".egg-info")
            and not _is_environment(here / f) and (skip_out is None or (here / f).resolve() != skip_out)
            and not is_output_folder(here / f)
        )
        for name in sorted(names):
            path = here / name
            if name.endswith(SKIPPED_SUFFIXES) or name == OUTPUT_MARK or not path.is_file() or path.resolve() in skipped or _written_by_astreduce(path):
                continue
            relative = path.relative_to(root).as_posix()
            try:
                files[relative] = path.read_bytes().decode("utf-8", errors="surrogateescape")
                modes[relative] = stat.S_IMODE(path.stat().st_mode)
            except OSError as error:
                raise UsageError(f"{path}: cannot read: {error.strerror}") from None
    return files, modes


def search_roots(files: dict[str, str], test_file: str) -> list[str]:
    """Folders (relative, '' for the root) that modules are found in, first first.

    The root (``python -m pytest`` puts it first on ``sys.path``), the test
    file's base folder (the first folder up from it that is not a package:
    pytest's ``prepend`` import mode puts it there), and ``src``.
    """
    roots = [""]
    folder = Path(test_file).parent
    while folder.as_posix() != "." and (folder / "__init__.py").as_posix() in files:
        folder = folder.parent
    base = "" if folder.as_posix() == "." else folder.as_posix()
    if base not in roots:
        roots.append(base)
    if any(p.startswith("src/") for p in files) and "src" not in roots:
        roots.append("src")
    return roots


def _module_file(name: str, root: str, files: dict[str, str]) -> list[str]:
    """The files importing ``name`` runs when it is found under ``root``: its packages' ``__init__``, itself."""
    parts = name.split(".")
    prefix = f"{root}/" if root else ""
    found: list[str] = []
    for end in range(1, len(parts) + 1):
        stem = prefix + "/".join(parts[:end])
        if f"{stem}/__init__.py" in files:
            found.append(f"{stem}/__init__.py")
        elif end == len(parts) and f"{stem}.py" in files:
            found.append(f"{stem}.py")
        elif end < len(parts) and any(p.startswith(stem + "/") for p in files):
            continue  # a namespace package: a folder without __init__.py
        else:
            break  # ``from pkg import name``: pkg is found, name is not a module
    return found


def imports_of(path: str, text: str) -> list[tuple[int, str, list[str]]]:
    """Every import in a file: (level, module, names imported from it)."""
    module = parse_module(text)
    if module is None:
        return []
    found: list[tuple[int, str, list[str]]] = []
    for node in ast.walk(module):
        if isinstance(node, ast.Import):
            found.extend((0, alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            found.append((node.level, node.module or "", [a.name for a in node.names if a.name != "*"]))
    return found


def import_closure(files: dict[str, str], starts: list[str], roots: list[str]) -> tuple[set[str], set[str]]:
    """The project files ``starts`` import, recursively (``starts`` included), and the other modules named.

    A name is looked up under each of ``roots`` in turn, as the interpreter
    would with those folders on ``sys.path``; a relative import from the
    importing file's package. What is not found under the project is an
    outside module (the standard library, site-packages).
    """
    closure: set[str] = set()
    outside: set[str] = set()
    queue = [p for p in starts if p in files]
    while queue:
        path = queue.pop()
        if path in closure:
            continue
        closure.add(path)
        if not path.endswith(".py"):
            continue
        root = next((r for r in sorted(roots, key=len, reverse=True) if not r or path.startswith(r + "/")), "")
        inside = path[len(root) + 1:] if root else path
        for level, module, names in imports_of(path, files[path]):
            name = absolute(level, module, inside) if level else module
            if not name:
                continue
            found = False
            for candidate in [name] + [f"{name}.{n}" for n in names]:
                for search in [root] if level else roots:
                    hits = _module_file(candidate, search, files)
                    if hits:
                        queue.extend(hits)
                        found = True
                        break
            if not found and not level:
                outside.add(name)
    return closure, outside


def conftests_on_the_way(files: dict[str, str], test_file: str) -> list[str]:
    """The ``conftest.py`` files pytest loads for the test file: the root's, then each folder's down to it."""
    parts = Path(test_file).parent.parts
    found = []
    for end in range(len(parts) + 1):
        candidate = "/".join([*parts[:end], "conftest.py"])
        if candidate in files:
            found.append(candidate)
    return found


def read_project(
    root: Path | None, nodeid: str, reduce: list[str] | None = None, python: str | None = None, outdir: Path | None = None,
    written: Iterable[Path] = (),
) -> Project:
    """Read the project at ``root`` (None: found from the node's file, :func:`find_root`) for the failing ``nodeid``.

    ``nodeid``'s file is relative to the working directory or to ``root``;
    ``reduce`` (``--reduce``) names the files to reduce instead of the test
    file and everything it imports; ``outdir`` and ``written`` are what astreduce writes, never read.

    Raises:
        UsageError: a node id that is not one, a file outside ``root`` or missing, an unknown interpreter.
    """
    test_path, test = split_nodeid(nodeid)
    root, root_origin = (root, "--root") if root is not None else find_root(test_path)
    root = root.resolve()
    relative = [_path_in_root(root, test_path)]
    for given in reduce or []:
        inside = _path_in_root(root, given)
        if inside not in relative:
            relative.append(inside)
    interpreter, origin = project_python(root, python)
    files, modes = read_project_files(root, outdir, written)
    test_file = relative[0]
    roots = search_roots(files, test_file)
    conftests = conftests_on_the_way(files, test_file)
    closure, outside = import_closure(files, [test_file, *conftests], roots)
    reduced = frozenset(relative) if reduce else frozenset(p for p in closure if p.endswith(".py"))
    tree, fixed = _tree_and_rest(files, reduced)
    imports = tuple(sorted(n for n in outside if n.split(".")[0] != "__future__"))
    return Project(
        root=root, nodeid=f"{test_file}::{test}", python=interpreter, python_origin=origin, root_origin=root_origin, tree=tree,
        reduced=reduced, fixed=fixed, modes=modes, imports=imports,
    )


def _path_in_root(root: Path, given: str) -> str:
    """``given`` (relative to the working directory, or to ``root``) as a path inside ``root``."""
    candidates = [Path(given)] if Path(given).is_absolute() else [Path.cwd() / given, root / given]
    for path in candidates:
        path = path.resolve()
        if path.is_file():
            if root != path and root not in path.parents:
                raise UsageError(f"{given}: not inside the project folder {root}")
            return path.relative_to(root).as_posix()
    raise UsageError(f"{given}: cannot read: No such file")


def _tree_and_rest(files: dict[str, str], reduced: frozenset[str]) -> tuple[dict[str, str], dict[str, str]]:
    """The tree (every file, or for a large project the reduced files and configuration) and the rest."""
    if len(files) <= TREE_FILES and sum(len(t) for t in files.values()) <= TREE_BYTES:
        return dict(files), {}
    keep = {p for p in files if p in reduced or Path(p).name in CONFIG_FILES or Path(p).name == "conftest.py"}
    return {p: t for p, t in files.items() if p in keep}, {p: t for p, t in files.items() if p not in keep}
