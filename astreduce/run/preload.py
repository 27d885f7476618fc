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


__all__ = ["preloadable"]
