"""Definitions with their uses: delete a name's definition and every statement that uses it."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from astreduce.source.render import DROP, Edit, Hole, Part, Replacement
from astreduce.transforms import Opportunity, Transform, rank_zero_first
from astreduce.source.scope import FUNCTIONS, Analysis, Scope, analyse, is_dunder
from astreduce.source.tree import Tree

#: Statements that may bind a name this transform deletes (anything else binds as a side effect).
_DEFINING = (
    ast.Assign,
    ast.AnnAssign,
    ast.AugAssign,
    ast.Import,
    ast.ImportFrom,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Global,
    ast.Delete,
)


#: Scopes whose names the transform deletes (not lambdas or comprehensions).
_SCOPES = (ast.Module, *FUNCTIONS, ast.ClassDef)


class DeleteWithUses(Transform):
    """Delete a definition together with every statement that uses it, in one candidate.

    Applies to: functions, classes, imported names and variables bound only
    by simple statements (assignments, ``import``, ``def``, ``class``) in the
    module or in a function; methods and class attributes defined once in
    the file (their uses are ``.name`` attributes anywhere).
    Yields: the binding statements (an imported name alone when its import
    names others) and the nearest statement around every use, dropped
    together; then the same closed over the names those statements defined.
    Notes: one proposal per name; a use in an ``if`` test, a default or a
    decorator takes the whole ``if`` or definition with it.
    """

    name = "delete-with-uses"

    def opportunities(self, tree: Tree) -> Iterator[Opportunity]:
        a = analyse(tree)
        if a is not None:
            yield from rank_zero_first(self._proposals(a))

    def _proposals(self, a: Analysis) -> Iterator[Opportunity]:
        seen: set[frozenset[int]] = set()
        for definition in _definitions(a):
            direct = _closure(a, definition, transitive=False)
            if direct is None:
                continue
            key = frozenset(direct)
            target = min(direct)
            if key not in seen:
                seen.add(key)
                yield Opportunity(self.name, target, direct, 0)
            wider = _closure(a, definition, transitive=True)
            if wider is not None and frozenset(wider) not in seen and len(wider) > len(direct):
                seen.add(frozenset(wider))
                yield Opportunity(self.name, target, wider, 1)


def _definitions(a: Analysis) -> Iterator[tuple[Scope, str]]:
    """(scope, name) of every name the transform may delete, in source order."""
    found: dict[tuple[int, str], Scope] = {}
    for scope_key, name in a.bindings:
        scope = a.scopes.get(scope_key)
        if scope is not None and not is_dunder(name) and isinstance(scope.node, _SCOPES):
            found.setdefault((scope_key, name), scope)
    order = sorted(found.items(), key=lambda item: _first_position(a, item[1], item[0][1]))
    for (_, name), scope in order:
        yield scope, name


def _first_position(a: Analysis, scope: Scope, name: str) -> int:
    nodes = a.bindings_of(scope, name)
    ids = [a.id(a.statement_of(n) or n) for n in nodes]
    return min((i for i in ids if i is not None), default=0)


def _closure(
    a: Analysis, definition: tuple[Scope, str], transitive: bool
) -> dict[int, Edit] | None:
    """Edits for ``definition`` (and, when transitive, for what it takes along)."""
    drops: dict[int, Edit] = {}
    pending = [definition]
    done: set[tuple[int, str]] = set()
    first = True
    while pending:
        scope, name = pending.pop()
        if (id(scope.node), name) in done:
            continue
        done.add((id(scope.node), name))
        found = _drops_for(a, scope, name)
        if found is None:
            if first:
                return None
            continue
        first = False
        new = [n for n in found if n not in drops]
        for node_id, edit in found.items():
            drops.setdefault(node_id, edit)
        if not transitive:
            break
        for node_id in new:
            if drops[node_id] is DROP:
                pending.extend(_bound_by(a, a.node(node_id)))
    # an edit below a dropped statement is moot; keep the set minimal
    kept = {
        d: e for d, e in drops.items() if not any(drops.get(p) is DROP for p in a.tree.ancestors(d))
    }
    return kept or None


def _drops_for(a: Analysis, scope: Scope, name: str) -> dict[int, Edit] | None:
    bindings = a.bindings_of(scope, name)
    if not bindings or (scope.is_function and a.declared_nonlocal(name)):
        return None
    drops: dict[int, Edit] = {}
    for binding in bindings:
        if not isinstance(binding, (ast.Name, ast.alias, ast.Global, *FUNCTIONS, ast.ClassDef)):
            return None  # parameters, ``except ... as``, patterns: not definitions of their own
        statement = a.statement_of(binding)
        if not isinstance(statement, _DEFINING):
            return None
        target = a.id(statement)
        if target is None or not a.tree.is_droppable(target):
            return None
        if isinstance(statement, (ast.Import, ast.ImportFrom)) and len(statement.names) > 1:
            # the import without this name, as one replacement: two such proposals
            # merged keep one of them, where dropping both names would leave ``import``
            rest = _import_without(a, statement, binding)
            if rest is None:
                return None
            drops[target] = rest
        else:
            drops[target] = DROP
    uses: list[ast.AST] = list(a.uses_of(scope, name))
    if scope.is_class:
        if any(a.bindings_of(s, name) for s in a.scopes.values() if s.is_class and s is not scope):
            return None  # defined in another class too: ``.name`` could mean either
        uses.extend(a.attributes.get(name, ()))
    for use in uses:
        statement = a.statement_of(use)
        target = a.id(statement) if statement is not None else None
        if target is None or not a.tree.is_droppable(target):
            return None
        if target not in drops and a.binds_nonlocal(a.node(target)):
            return None
        drops[target] = DROP
    return drops


def _import_without(
    a: Analysis, statement: ast.Import | ast.ImportFrom, alias: ast.AST
) -> Edit | None:
    """The import statement without ``alias``, its other names kept as they are."""
    kept = [x for x in statement.names if x is not alias]
    ids = [i for i in (a.id(x) for x in kept) if i is not None]
    if not kept or len(ids) != len(kept):
        return None
    if isinstance(statement, ast.Import):
        head = "import "
    else:
        head = f"from {'.' * statement.level}{statement.module or ''} import "
    parts: list[Part] = [head]
    for position, alias_id in enumerate(ids):
        parts += ([", "] if position else []) + [Hole(alias_id)]
    return Replacement(tuple(parts))


def _bound_by(a: Analysis, statement: ast.AST) -> Iterator[tuple[Scope, str]]:
    """The names a dropped statement defined whose every binding it held."""
    if not isinstance(statement, ast.stmt):
        return
    scope = a.scope(statement)
    names: list[str] = []
    if isinstance(statement, (*FUNCTIONS, ast.ClassDef)):
        names.append(statement.name)
    elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        names.extend(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    elif isinstance(statement, (ast.Import, ast.ImportFrom)):
        names.extend((x.asname or x.name).split(".")[0] for x in statement.names)
    for name in names:
        bindings = a.bindings_of(scope, name)
        if bindings and all(a.statement_of(b) is statement for b in bindings):
            yield scope, name
