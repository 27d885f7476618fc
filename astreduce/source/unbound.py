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
  sometimes (``key in _table`` in ``if locale and key in _table:``; a
  conditional expression's branches, but for what both read), nor
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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from astreduce.source.difference import common_length
from astreduce.source.scope import is_dunder
from astreduce.source.statements import class_parts, incomplete, member_starts, starts

#: Names every module has without binding them.
_ALWAYS_BOUND = frozenset(dir(builtins)) | {
    "__file__", "__name__", "__doc__", "__spec__", "__loader__", "__package__", "__builtins__", "__path__",
    "__annotations__", "__dict__", "__module__", "__qualname__", "__class__", "__cached__",
}

_STAR_IMPORT = re.compile(r"import\s+\*")
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
    names are not known), or has a module ``__getattr__`` (it answers for names it does not bind).

    A module's names are its top-level statements' (each compiles alone the same, :mod:`astreduce.source.statements`),
    and a class's are its members', each compiled under the class's header; each is found once by its text, so a
    candidate costs ``symtable`` only on the statements or members it changed (a statement deleted anywhere in pint's
    1,259-line registry, most of it one class: 5 ms, against 12.5 ms for the whole text's ``symtable``).
    """
    if "*" in text and _STAR_IMPORT.search(text):  # symtable keeps no trace of it
        return None
    future = "__future__" in text and _POSTPONED.search(text) is not None
    parts = _each_piece(text, starts(text), lambda piece: _statement_names(piece, future))
    if parts is None:
        return None
    bound = frozenset().union(*(part[0] for part in parts))
    if "__getattr__" in bound:
        return None
    reads = frozenset().union(*(part[1] for part in parts))
    return Names(bound, frozenset(read for read in reads if read[1] not in bound))


def _each_piece(text: str, places: list[int], names: Callable[[str], Any]) -> list[Any] | None:
    """``names`` of each piece of ``text`` cut at ``places`` (what comes before the first is the first piece's); a
    piece that does not compile alone but may with more lines (:data:`_INCOMPLETE`: a decorator, a string over
    lines) takes the next. None if one does not compile, however many lines it takes."""
    ends = [at for at in places if at] + [len(text)]
    found = []
    begin = 0
    for end in ends:
        names_found = names(text[begin:end])
        if names_found is _INCOMPLETE and end < len(text):
            continue
        if names_found is None or names_found is _INCOMPLETE:
            return None
        found.append(names_found)
        begin = end
    return found


def _statement_names(piece: str, future: bool) -> tuple[frozenset[str], frozenset[Read]] | object | None:
    """What the top-level statements of ``piece`` bind at module level, and their scopes' reads of a name that
    resolves in the module and is no builtin; :data:`_INCOMPLETE` if ``piece`` does not compile alone but may with
    the lines after it, None if it cannot. A class is found from its members (:func:`_class_names`)."""
    key = (future, piece, "statement")
    found = _KEPT.get(key, _UNKNOWN)
    if found is _UNKNOWN:
        found = _class_names(piece, future) if piece.startswith(("class", "@")) else None
        if found is None:
            table = _symbols_of(piece, future)
            if isinstance(table, symtable.SymbolTable):
                reads = {("", name) for name in _reads_resolved_in_module(table, module=True)}
                reads.update(_deeper_reads(table, ""))
                found = (_module_bound(table), frozenset(reads))
            else:
                found = table
        _keep_names(key, found)
    return found


def _class_names(piece: str, future: bool) -> tuple[frozenset[str], frozenset[Read]] | None:
    """A class statement's names from its header's and each member's, every member compiled under the header alone:
    a class-level read is one no member binds. None when ``piece`` is no class this can split (its body declares a
    name ``global`` or ``nonlocal``, or its header does not compile alone). Under its header a member's private
    names are mangled as in the whole class."""
    cut = class_parts(piece)
    if cut is None or (("global" in piece or "nonlocal" in piece) and _DECLARES.search(piece)):
        return None
    header, indent, name = cut
    head = _symbols_of(header + indent + "pass\n", future)
    body = piece[len(header):]
    places = starts(body, *member_starts(indent))
    if not isinstance(head, symtable.SymbolTable) or not places or places[0]:
        return None
    members = _each_piece(body, places, lambda member: _member_names(header, member, future))
    if members is None:
        return None
    bound = frozenset().union(*(member[0] for member in members))
    reads = {("", read) for read in _reads_resolved_in_module(head, module=True)}
    reads.update(_deeper_reads(head, ""))  # its decorators' and bases' lambdas (its own scope holds a pass)
    reads.update((name, read) for member in members for read in member[1] if read not in bound)
    reads.update(read for member in members for read in member[2])
    return _module_bound(head), frozenset(reads)


def _member_names(header: str, member: str, future: bool) -> tuple[frozenset[str], frozenset[str], frozenset[Read]] | object | None:
    """A class member's names, compiled under the class's ``header``: what it binds in the class, the names it reads
    there that it does not bind, and its inner scopes' reads that resolve in the module."""
    key = (future, header + member, "member")  # a class of one member has its statement's text
    found = _KEPT.get(key, _UNKNOWN)
    if found is _UNKNOWN:
        found = table = _symbols_of(header + member, future)
        if isinstance(table, symtable.SymbolTable):
            body = table.get_children()[-1]  # the class's own scope, after any its decorators and bases open
            found = (_module_bound(body), frozenset(_reads_resolved_in_module(body, module=False)), frozenset(_deeper_reads(body, body.get_name())))
        _keep_names(key, found)
    return found


def _symbols_of(text: str, future: bool) -> symtable.SymbolTable | object | None:
    """``text``'s symbol table, or :data:`_INCOMPLETE`, or None (see :func:`_statement_names`)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return symtable.symtable(_FUTURE_LINE + text if future else text, "<candidate>", "exec")
    except (SyntaxError, ValueError, RecursionError):
        return _INCOMPLETE if incomplete(text) else None


def _keep_names(key: tuple[bool, str, str], found: object) -> None:
    if len(_KEPT) >= _KEPT_AT_MOST:
        _KEPT.clear()
    _KEPT[key] = found


def _module_bound(table: symtable.SymbolTable) -> frozenset[str]:
    """The names ``table``'s own scope binds."""
    return frozenset(s.get_name() for s in table.get_symbols() if s.is_assigned() or s.is_imported() or s.is_namespace())


def _reads_resolved_in_module(table: symtable.SymbolTable, module: bool) -> Iterator[str]:
    """The names ``table``'s own scope reads and resolves in the module (every name read, for a ``module``'s),
    builtins left out."""
    for symbol in table.get_symbols():
        name = symbol.get_name()
        if symbol.is_referenced() and (module or symbol.is_global()) and name not in _ALWAYS_BOUND:
            yield name


def _deeper_reads(table: symtable.SymbolTable, scope: str) -> Iterator[Read]:
    """The reads of the scopes inside ``table`` (named from ``scope``) that resolve in the module."""
    for child in table.get_children():
        inner = f"{scope}.{child.get_name()}" if scope else child.get_name()
        yield from ((inner, name) for name in _reads_resolved_in_module(child, module=False))
        yield from _deeper_reads(child, inner)


_UNKNOWN = object()
_INCOMPLETE = object()
#: The names of statements and class members by text (and whether their module postpones annotations); cleared
#: when full.
_KEPT: dict[tuple[bool, str, str], Any] = {}
_KEPT_AT_MOST = 50_000
#: ``from __future__ import annotations`` puts a module's annotations in scopes of their own: each statement
#: compiles with it when its module has it.
_POSTPONED = re.compile(r"^from[ \t]+__future__[ \t]+import[^\n]*\bannotations\b", re.MULTILINE)
_FUTURE_LINE = "from __future__ import annotations\n"
#: What a class's members cannot be compiled apart with: a ``global`` or ``nonlocal`` (perhaps in its body).
_DECLARES = re.compile(r"\b(?:global|nonlocal)\b")


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
        if isinstance(node, ast.IfExp) and node.lineno in ran:  # whichever branch runs reads what both read
            found.update((scope, name) for name in _names_read(node.body) & _names_read(node.orelse))
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


def _names_read(node: ast.AST) -> set[str]:
    """The names ``node`` reads where it stands (not in the scopes it opens)."""
    found = set()
    todo = [node]
    while todo:
        part = todo.pop()
        if isinstance(part, ast.Name) and isinstance(part.ctx, ast.Load):
            found.add(part.id)
        if _inner_scope(part) is None:
            todo.extend(child for _, child in _children(part))
    return found


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
    conditional expression's branches (``key in _symbols_of`` in ``if locale and key in _symbols_of:``)."""
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
