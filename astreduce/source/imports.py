"""Who imports whom in a tree of files: module names, import statements, importers.

The multi-file reducer needs to know which module each file is
(``pkg/sub/m.py`` is ``pkg.sub.m``, ``pkg/__init__.py`` is ``pkg``) and which
files import it, to merge a module into its only importer and to reduce
importers before the modules they import. Names resolve as the interpreter
resolves them with the tree's root on ``sys.path``: absolute imports by name,
relative ones from the importing file's package. Importing ``pkg.sub.m``
also runs ``pkg`` and ``pkg.sub`` (their ``__init__``), so those count as
imported too, *implicitly*.

Dynamic imports (``importlib.import_module("m")``, ``__import__``) and
imports that name a file by path are not seen. That costs tests, never a
wrong result: the oracle judges every candidate tree.
"""

from __future__ import annotations

import ast
import functools
import warnings
from collections.abc import Iterator, Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Reference:
    """One import of a module of the tree by a file of the tree."""

    importer: str
    """Path of the importing file."""
    module: str
    """The module's full name."""
    line: int
    """First line of the import statement (1-based)."""
    top_level: bool
    """The statement sits directly in the module body (not in a function, ``if`` or ``try``)."""
    explicit: bool
    """False for a parent package that the import runs without naming it."""


def module_name(path: str) -> str | None:
    """The module a file is, with the tree's root on ``sys.path``; ``None`` when it is not one.

    >>> module_name("pkg/sub/m.py"), module_name("pkg/__init__.py"), module_name("README.md")
    ('pkg.sub.m', 'pkg', None)
    """
    if not path.endswith(".py"):
        return None
    parts = path[: -len(".py")].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    if not parts or not all(part.isidentifier() for part in parts):
        return None
    return ".".join(parts)


def is_package(path: str) -> bool:
    return path == "__init__.py" or path.endswith("/__init__.py")


def package_of(path: str) -> str:
    """The package a file's relative imports start from ('' at the root)."""
    parts = path.split("/")[:-1]
    return ".".join(parts)


def modules_of(tree: Mapping[str, str]) -> dict[str, str]:
    """Module name → path, for every file of ``tree`` that is a module."""
    modules: dict[str, str] = {}
    for path in sorted(tree):
        name = module_name(path)
        if name is not None:
            modules.setdefault(name, path)
    return modules


def parse_module(text: str) -> ast.Module | None:
    """``text`` parsed by this interpreter, or ``None`` when it does not parse."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings belong to the code, not to us
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def absolute(level: int, module: str | None, importer: str) -> str | None:
    """The full name ``from <dots><module> import ...`` means in the file ``importer``.

    ``None`` when the dots climb above the tree's root.
    """
    if level == 0:
        return module or None
    package = package_of(importer).split(".") if package_of(importer) else []
    if level - 1 > len(package):
        return None
    base = package[: len(package) - (level - 1)]
    if module:
        base.append(module)
    return ".".join(base) or None


def _parents(name: str) -> Iterator[str]:
    parts = name.split(".")
    for end in range(1, len(parts)):
        yield ".".join(parts[:end])


def statement_imports(node: ast.Import | ast.ImportFrom, importer: str, modules: Mapping[str, str]) -> Iterator[str]:
    """The modules of the tree that one import statement names (parents not included)."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name
        return
    base = absolute(node.level, node.module, importer)
    if base is None:
        return
    yield base
    for alias in node.names:
        if alias.name != "*" and f"{base}.{alias.name}" in modules:
            yield f"{base}.{alias.name}"  # ``from pkg import m`` where m is a submodule


@functools.lru_cache(maxsize=1024)
def _import_statements(text: str) -> tuple[tuple[ast.Import | ast.ImportFrom, bool], ...]:
    """The import statements of ``text``, each with whether it sits in the module body.

    Parsed once per text: a tree's import graph is asked for again after
    every change of one file, and the other files' texts are the same.
    """
    module = parse_module(text)
    if module is None:
        return ()
    top = set(map(id, module.body))
    return tuple(
        (node, id(node) in top) for node in ast.walk(module) if isinstance(node, (ast.Import, ast.ImportFrom))
    )


def references(path: str, text: str, modules: Mapping[str, str]) -> list[Reference]:
    """Every import of a module of the tree in the file ``path``, in source order.

    Returns [] for a file that does not parse.
    """
    found: list[Reference] = []
    for node, at_top in _import_statements(text):
        for name in statement_imports(node, path, modules):
            for parent in _parents(name):
                if parent in modules:
                    found.append(Reference(path, parent, node.lineno, at_top, explicit=False))
            if name in modules:
                found.append(Reference(path, name, node.lineno, at_top, explicit=True))
    found.sort(key=lambda r: (r.line, not r.explicit, r.module))
    return found


@functools.lru_cache(maxsize=1024)
def _run_at_import(text: str) -> tuple[ast.Import | ast.ImportFrom, ...]:
    """The import statements of ``text`` that run when it is imported: not those in a function's body."""
    module = parse_module(text)
    if module is None:
        return ()
    found: list[ast.Import | ast.ImportFrom] = []
    todo: list[ast.AST] = [module]
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))
    return tuple(found)


def names_imported_at_import(path: str, text: str) -> set[tuple[str, str]]:
    """(module, name) that the ``from module import name`` statements the file ``path`` runs when imported ask for."""
    return {
        (base, alias.name) for node in _run_at_import(text) if isinstance(node, ast.ImportFrom)
        and (base := absolute(node.level, node.module, path)) is not None for alias in node.names
    }


def held_modules(path: str, text: str, modules: Mapping[str, str]) -> set[str]:
    """The modules of the tree whose objects the file ``path`` holds once it is imported: those its imports run at
    import time name, and the top package each ``import a.b`` binds (an import in a function looks its module up
    when it runs, and holds nothing)."""
    found: set[str] = set()
    for node in _run_at_import(text):
        found.update(name for name in statement_imports(node, path, modules) if name in modules)
        if isinstance(node, ast.Import):
            found.update(a.name.split(".")[0] for a in node.names if a.asname is None and a.name.split(".")[0] in modules)
    return found


@dataclass
class ImportGraph:
    """The imports between the files of one tree."""

    modules: dict[str, str]
    """Module name → path."""
    refs: dict[str, list[Reference]]
    """Importing file → its references."""

    @classmethod
    def of(cls, tree: Mapping[str, str]) -> ImportGraph:
        modules = modules_of(tree)
        refs = {path: references(path, text, modules) for path, text in sorted(tree.items()) if path.endswith(".py")}
        return cls(modules, refs)

    def imported_by(self, path: str) -> set[str]:
        """The paths of the files that ``path`` imports (explicitly or as parent packages)."""
        return {self.modules[r.module] for r in self.refs.get(path, []) if self.modules[r.module] != path}

    def importers(self, path: str, explicit: bool = False) -> set[str]:
        """The files that import the module at ``path`` (with ``explicit``, by its name only)."""
        name = module_name(path)
        if name is None or self.modules.get(name) != path:
            return set()
        return {
            importer
            for importer, refs in self.refs.items()
            if importer != path and any(r.module == name and (r.explicit or not explicit) for r in refs)
        }

    def order(self, sizes: Mapping[str, int]) -> list[str]:
        """Every file, importers before the files they import (largest first among equals).

        Reducing an importer first drops the imports it does not need, so the
        modules only those imports kept alive can go whole, without being
        reduced in vain. Only imports by name count: a package's ``__init__``
        that every module of the package runs implicitly (and that often
        re-exports them all) would otherwise tie the whole package into one
        cycle. Files in a cycle come in size order.
        """
        paths = sorted(sizes, key=lambda p: (-sizes[p], p))
        remaining = set(paths)
        waiting = {p: self.importers(p, explicit=True) for p in paths}
        ordered: list[str] = []
        while remaining:
            ready = [p for p in paths if p in remaining and not waiting[p] & remaining]
            chosen = ready[0] if ready else next(p for p in paths if p in remaining)  # a cycle
            ordered.append(chosen)
            remaining.discard(chosen)
        return ordered
