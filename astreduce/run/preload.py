"""Which imports of a program the fork server may do once for all its tests (see
:func:`astreduce.run.forkserver.preload`)."""

from __future__ import annotations

import ast
import sys


def preloadable(text: str, append: str = "") -> tuple[str, ...]:
    """The modules of ``text`` (and of its ``append``) that the fork server may import once for all tests
    (:func:`~astreduce.run.forkserver.preload`): what a plain run imports before any code of its own
    (the leading import statements, after a docstring and assignments of literals), and any other import of
    a module this process has loaded already. An import placed after the program's own code may depend on
    what that code did first (an environment variable set, a backend chosen), so only the first kind is new.
    """
    names: dict[str, None] = {}
    for number, source in enumerate((text, append)):
        try:
            module = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        leading = number == 0
        for statement in module.body:
            if not leading:
                break
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                names.update(dict.fromkeys(_imported(statement)))
            elif not _inert(statement):
                leading = False
        for node in ast.walk(module):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names.update(dict.fromkeys(name for name in _imported(node) if name in sys.modules))
    return tuple(names)


def leading_imports(text: str, package: str = "") -> tuple[list[tuple[str, tuple[str, ...]]], bool]:
    """What ``text`` imports before any code of its own runs, and whether nothing else runs in it.

    Each import as (module, names): the absolute module (a relative one resolved in ``package``) and,
    for ``from M import a, b``, the names, which may be submodules. The second value says whether the
    text is only imports and inert statements: then what is imported after it is imported before any
    code of its runs.
    """
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return [], False
    found: list[tuple[str, tuple[str, ...]]] = []
    for statement in module.body:
        if isinstance(statement, ast.Import):
            found.extend((alias.name, ()) for alias in statement.names)
        elif isinstance(statement, ast.ImportFrom):
            base = _absolute(statement, package)
            if base is None:
                return found, False
            found.append((base, tuple(alias.name for alias in statement.names if alias.name != "*")))
        elif not _inert(statement) and not _finding(statement):
            return found, False
    return found, True


def _finding(statement: ast.stmt) -> bool:
    """``sys.path.insert(...)``, ``sys.path.append(...)`` or ``sys.dont_write_bytecode = ...``: where modules are
    found and whether their bytecode is written, as an interestingness script sets up before it imports the tree."""
    if isinstance(statement, ast.Expr) and isinstance(call := statement.value, ast.Call):
        return ast.unparse(call.func) in ("sys.path.insert", "sys.path.append")
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        return ast.unparse(statement.targets[0]) == "sys.dont_write_bytecode"
    return False


def _absolute(statement: ast.ImportFrom, package: str) -> str | None:
    """The absolute name of the module a ``from`` import names (None: above the top package)."""
    if not statement.level:
        return statement.module
    parts = package.split(".") if package else []
    if statement.level - 1 >= len(parts):  # no package, or beyond the top one: the import fails
        return None
    base = parts[: len(parts) - (statement.level - 1)]
    return ".".join([*base, statement.module] if statement.module else base)


def _imported(statement: ast.Import | ast.ImportFrom) -> list[str]:
    """The absolute module names an import statement imports (a relative import names none)."""
    if isinstance(statement, ast.Import):
        return [alias.name for alias in statement.names]
    return [statement.module] if statement.level == 0 and statement.module else []


def _inert(statement: ast.stmt) -> bool:
    """A docstring, ``pass``, or a literal bound to plain names (``__all__ = [...]``): nothing that runs code."""
    if isinstance(statement, ast.Pass):
        return True
    if isinstance(statement, ast.Expr):
        return isinstance(statement.value, ast.Constant)
    if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        if all(isinstance(target, ast.Name) for target in targets):
            try:
                ast.literal_eval(statement.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                return False
            return True
    return False


__all__ = ["leading_imports", "preloadable"]
