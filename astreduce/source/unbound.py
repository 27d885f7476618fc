"""Names a program reads that nothing binds, and the names a run read: a candidate that unbinds a name its run reads.

A deletion that takes away the only binding of a name (an import, a
definition, an assignment) while a line the run executes still reads it
ends in a ``NameError`` (or ``UnboundLocalError``) at that line, never in
the original's failure; one that takes away a name another module's
executed ``from module import name`` asks for ends in an ``ImportError``.
On pint's project under ``astreduce pytest`` (67 files), candidates that
unbind some name were 22% of a run's tests, and 11% of them reproduced (the
name was read only where the run never went). So the check asks:

* :func:`names_of`: what a module binds, and each scope's reads of a name
  that neither the scope nor the module nor the builtins bind
  (``symtable``: the compiler's own resolution, at C speed);
* :func:`executed_reads`: the names each scope read on a line the run
  executed, from coverage; not the parts of a line evaluated only
  sometimes (``key in _table`` in ``if locale and key in _table:``), nor
  annotations Python never evaluates.

A candidate breaks the run (:class:`Unbinding`) when a read it unbinds
(unbound in it, bound in the text it was made from) is one the run
executed, in a scope the candidate may still run (every function on its
path is still named somewhere else than where it is defined: a change that
unbinds a helper's import and deletes its last call leaves nothing to
fail), or when it unbinds a name an executed import asks of it. The scope
of a read is its path of enclosing definitions (``Class.method``; a lambda
is ``lambda``, a comprehension ``listcomp``...), the names ``symtable``
gives its tables, so that the two sides meet without line numbers, which a
candidate shifts.

It is a judgement without a test, so it must be right where it answers:
a run may still catch the ``NameError`` (``except Exception``) or call a
function through a name no text holds; such a candidate is lost to the
search, never kept wrongly (it is UNRESOLVED, as a test would most likely
have said).
"""

from __future__ import annotations

import ast
import builtins
import re
import symtable
import warnings
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from astreduce.source.difference import common_length
from astreduce.source.scope import is_dunder

#: Names every module has without binding them.
_ALWAYS_BOUND = frozenset(dir(builtins)) | {
    "__file__", "__name__", "__doc__", "__spec__", "__loader__", "__package__", "__builtins__", "__path__",
    "__annotations__", "__dict__", "__module__", "__qualname__", "__class__", "__cached__",
}

_STAR_IMPORT = re.compile(r"\bimport\s+\*")
_IDENTIFIER = re.compile(r"[^\W\d]\w*")

_COMPREHENSIONS = {ast.ListComp: "listcomp", ast.SetComp: "setcomp", ast.DictComp: "dictcomp", ast.GeneratorExp: "genexpr"}

Read = tuple[str, str]
"""(scope, name): a scope's read of a name; the module's scope is ``""``."""


@dataclass(frozen=True)
class Names:
    """What a module's text binds at module level, and its reads that nothing binds."""

    bound: frozenset[str]
    unbound: frozenset[Read]


def names_of(text: str) -> Names | None:
    """The module-level names ``text`` binds and its reads that nothing binds: a name a scope reads and resolves in
    the module, which neither binds nor has as a builtin. None when it does not compile, or imports ``*`` (its
    names are not known), or has a module ``__getattr__`` (it answers for names it does not bind)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            top = symtable.symtable(text, "<candidate>", "exec")
    except (SyntaxError, ValueError, RecursionError):
        return None
    if _STAR_IMPORT.search(text):  # symtable keeps no trace of it
        return None
    bound = frozenset(s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported() or s.is_namespace())
    if "__getattr__" in bound:
        return None
    found: set[Read] = set()
    todo: list[tuple[symtable.SymbolTable, str]] = [(top, "")]
    while todo:
        table, scope = todo.pop()
        module = table is top
        for symbol in table.get_symbols():
            name = symbol.get_name()
            if symbol.is_referenced() and (module or symbol.is_global()) and name not in bound and name not in _ALWAYS_BOUND:
                found.add((scope, name))
        for child in table.get_children():
            todo.append((child, f"{scope}.{child.get_name()}" if scope else child.get_name()))
    return Names(bound, frozenset(found))


def executed_reads(text: str, lines: Iterable[int]) -> frozenset[Read]:
    """The reads of a name on the executed ``lines`` of ``text``, by scope (as :func:`names_of` names them)."""
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return frozenset()
    ran = frozenset(lines)
    postponed = any(
        isinstance(s, ast.ImportFrom) and s.module == "__future__" and any(a.name == "annotations" for a in s.names) for s in module.body
    )
    found: set[Read] = set()

    def visit(node: ast.AST, scope: str, in_function: bool) -> None:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.lineno in ran:
            found.add((scope, node.id))
        inner = _inner_scope(node)
        if inner is None:
            sometimes = _conditional(node)
            for field, child in _children(node):
                if field == "annotation" and (postponed or in_function):  # never evaluated
                    continue
                if any(child is part for part in sometimes):  # a line ran, this part of it perhaps not
                    continue
                visit(child, scope, in_function)
            return
        outside, inside = _split(node, postponed)
        for child in outside:
            visit(child, scope, in_function)
        name = f"{scope}.{inner}" if scope else inner
        for child in inside:
            visit(child, name, not isinstance(node, ast.ClassDef))

    visit(module, "", False)
    return frozenset(found)


def _children(node: ast.AST) -> Iterator[tuple[str, ast.AST]]:
    """``node``'s child nodes, each with the field it is in."""
    for field, value in ast.iter_fields(node):
        if isinstance(value, ast.AST):
            yield field, value
        elif isinstance(value, list):
            yield from ((field, item) for item in value if isinstance(item, ast.AST))


def _name_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def _conditional(node: ast.AST) -> list[ast.AST]:
    """The parts of ``node`` evaluated only sometimes when its line runs: an ``and``/``or``'s later operands, a
    conditional expression's branches (``key in _table`` in ``if locale and key in _table:``)."""
    if isinstance(node, ast.BoolOp):
        return node.values[1:]
    if isinstance(node, ast.IfExp):
        return [node.body, node.orelse]
    return []


def _inner_scope(node: ast.AST) -> str | None:
    """The name ``symtable`` gives the scope ``node`` opens, if it opens one."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return node.name
    if isinstance(node, ast.Lambda):
        return "lambda"
    return _COMPREHENSIONS.get(type(node))


def _split(node: ast.AST, postponed: bool) -> tuple[list[ast.AST], list[ast.AST]]:
    """A scope-opening node's children evaluated where it stands (decorators, defaults, bases, annotations unless
    ``postponed``, a comprehension's first iterable) and those evaluated in its own scope."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        arguments = node.args
        outside: list[ast.AST] = [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]
        if not isinstance(node, ast.Lambda):
            outside += node.decorator_list
            every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
            if not postponed:
                outside += [a.annotation for a in every if a is not None and a.annotation is not None]
                outside += [node.returns] if node.returns is not None else []
            return outside, list(node.body)
        return outside, [node.body]
    if isinstance(node, ast.ClassDef):
        return [*node.decorator_list, *node.bases, *node.keywords], list(node.body)
    generators = node.generators  # type: ignore[attr-defined]
    first = generators[0]
    inside: list[ast.AST] = [first.target, *first.ifs, *(part for g in generators[1:] for part in (g.target, g.iter, *g.ifs))]
    inside += [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]  # type: ignore[attr-defined]
    return [first.iter], inside


#: The failures a run that reads an unbound name raises, or that match them: with one as the target, a candidate
#: that unbinds a name may well be interesting.
NAME_FAILURES = frozenset({"NameError", "UnboundLocalError", "Exception", "BaseException"})


def sure_to_differ(exception: str) -> bool:
    """Whether a run that reads an unbound name surely fails otherwise than by raising ``exception`` (the target's
    type, as the oracle's traits say it; '' when the oracle judges no exception)."""
    return bool(exception) and exception.rsplit(".", 1)[-1] not in NAME_FAILURES


@dataclass(frozen=True)
class RunReads:
    """What a run read of one module: its scopes' names on executed lines, and the names other modules' executed
    ``from module import name`` asked of it."""

    reads: frozenset[Read]
    imported: frozenset[str] = frozenset()

    def __or__(self, merged: RunReads) -> RunReads:
        """This module's, with ``merged``'s scopes (merged into it; what was imported of it came from this one)."""
        return RunReads(self.reads | merged.reads, self.imported)


class Unbinding:
    """Whether a candidate unbinds a name the run reads (:class:`RunReads`) against the text it was made from (the
    best, whose names are found once per text): a read of an executed line, or a name an executed import asks of it."""

    def __init__(self, run: RunReads) -> None:
        self.run = run
        self._names = frozenset(name for _, name in run.reads) | run.imported
        self._before: tuple[str, Names | None] | None = None

    def __call__(self, best: str, candidate: str) -> bool:
        shortest = min(len(best), len(candidate))
        head = common_length(best, candidate, shortest)
        tail = common_length(best, candidate, shortest - head, from_end=True)
        while head and _name_char(best[head - 1]):  # whole names: a change may begin or end inside one
            head -= 1
        while tail and _name_char(best[len(best) - tail]):
            tail -= 1
        changed = best[head : len(best) - tail] + " " + candidate[head : len(candidate) - tail]
        if self._names.isdisjoint(_IDENTIFIER.findall(changed)):
            return False  # to unbind a read, a change removes its binding or moves it: either holds its name
        if self._before is None or self._before[0] is not best:
            self._before = (best, names_of(best))
        before = self._before[1]
        if before is None:
            return False
        after = names_of(candidate)
        if after is None:
            return False
        if not (before.bound - after.bound).isdisjoint(self.run.imported):
            return True
        unbound = (after.unbound - before.unbound) & self.run.reads
        if not unbound:
            return False
        counts = Counter(_IDENTIFIER.findall(candidate))
        return any(_reachable(scope, counts) for scope, _ in unbound)


#: The names ``symtable`` gives the scopes that have none.
_ANONYMOUS = frozenset({"lambda", *_COMPREHENSIONS.values()})


def _reachable(scope: str, counts: Counter[str]) -> bool:
    """Whether the candidate may still run ``scope``: each function or class on its path is named somewhere besides
    its definition (or is a dunder, which Python calls). A function nothing names any more (its last call went with
    the same change) does not run, whatever its reads."""
    return not scope or all(part in _ANONYMOUS or is_dunder(part) or counts[part] >= 2 for part in scope.split("."))


__all__ = ["NAME_FAILURES", "Names", "Read", "RunReads", "Unbinding", "executed_reads", "names_of", "sure_to_differ"]
