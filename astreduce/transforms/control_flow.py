"""Control flow: run a loop's body once, unwrap ``with`` and ``try``, drop return values, inline a call at module level.

``hoist-block`` already replaces a loop, ``with``, ``try`` or definition with
one of its blocks as it is. These transforms add what it lacks: binding the
loop or ``with`` targets, the path through ``try`` that raises nothing,
every return value of a function at once, and a function's body in place of
its only call at module level.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from astreduce.source.render import DROP, BlockHole, Edit, Hole, Part, Replacement
from astreduce.transforms import Function, FunctionTransform, Opportunity, ScopeTransform
from astreduce.transforms.inlining import CallInliner, Site, inline_statements
from astreduce.source.precedence import stands_alone, wrap
from astreduce.source.scope import FUNCTIONS, Analysis, shrinks

_LOOPS = (ast.For, ast.AsyncFor, ast.While)


def _owns_blocks(a: Analysis, statement: ast.stmt, fields: tuple[str, ...]) -> int | None:
    """The statement's id when it begins a line and every named block can be re-indented."""
    tree = a.tree
    statement_id = a.id(statement)
    if statement_id is None or statement_id not in tree.indents:
        return None
    for name in fields:
        block = getattr(statement, name)
        if not block:
            continue
        first = a.id(block[0])
        if (statement_id, name) not in tree.blocks or first is None or first not in tree.indents:
            return None
    return statement_id


def _jumps_out(body: list[ast.stmt]) -> bool:
    """Whether ``break`` or ``continue`` in ``body`` belongs to the loop that owns it."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Break, ast.Continue)):
            return True
        if isinstance(node, (*FUNCTIONS, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, _LOOPS):
            stack.extend(node.orelse)  # a nested loop's ``else`` still belongs to ours
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False


def _first_item(a: Analysis, iterable: ast.expr) -> tuple[list[Part], bool] | None:
    """Parts that render the first item ``iterable`` yields, and whether they form an atom."""
    node_id = a.id(iterable)
    if node_id is None:
        return None
    if (
        isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and not iterable.keywords
    ):
        name, args = iterable.func.id, iterable.args
        if a.resolved.get(id(iterable.func)) is None and not any(
            isinstance(x, ast.Starred) for x in args
        ):
            if name == "range" and len(args) == 1:
                return ["0"], False
            if name == "range" and len(args) in (2, 3):
                start_id = a.id(args[0])
                return (
                    ([Hole(start_id)], stands_alone(args[0], a.source(args[0])))
                    if start_id is not None
                    else None
                )
            if name == "enumerate" and len(args) == 1:
                inner = _first_item(a, args[0])
                return (["(0, ", *inner[0], ")"], True) if inner is not None else None
    if (
        isinstance(iterable, (ast.List, ast.Tuple))
        and iterable.elts
        and not isinstance(iterable.elts[0], ast.Starred)
    ):
        first_id = a.id(iterable.elts[0])
        if first_id is None:
            return None
        return [Hole(first_id)], stands_alone(iterable.elts[0], a.source(iterable.elts[0]))
    if isinstance(iterable, ast.Dict) and iterable.keys and iterable.keys[0] is not None:
        key_id = a.id(iterable.keys[0])
        return (
            ([Hole(key_id)], stands_alone(iterable.keys[0], a.source(iterable.keys[0])))
            if key_id is not None
            else None
        )
    if isinstance(iterable, ast.Constant) and isinstance(iterable.value, str) and iterable.value:
        return [repr(iterable.value[0])], True
    if stands_alone(iterable, a.source(iterable)):
        return [Hole(node_id), "[0]"], True
    return ["(", Hole(node_id), ")[0]"], True


def _components(
    a: Analysis, target: ast.expr, iterable: ast.expr
) -> dict[str, tuple[list[Part], bool]] | None:
    """For substitution: each target name → the parts of its first value."""
    if isinstance(target, ast.Name):
        first = _first_item(a, iterable)
        return {target.id: first} if first is not None else None
    if (
        isinstance(target, ast.Tuple)
        and len(target.elts) == 2
        and all(isinstance(e, ast.Name) for e in target.elts)
        and isinstance(iterable, ast.Call)
        and isinstance(iterable.func, ast.Name)
        and iterable.func.id == "enumerate"
        and len(iterable.args) == 1
        and not iterable.keywords
        and a.resolved.get(id(iterable.func)) is None
    ):
        inner = _first_item(a, iterable.args[0])
        if inner is None:
            return None
        index, value = target.elts
        return {index.id: (["0"], False), value.id: inner}  # type: ignore[attr-defined]  # Names, checked
    return None


class LoopToBody(ScopeTransform[ast.For | ast.While]):
    """Run a loop's body once: a ``for`` with its target bound to the first item.

    Applies to: ``for`` loops without ``break`` or ``continue`` of their
    own; and ``for`` and ``while`` loops whose body ends in a ``break`` and
    jumps nowhere else (they run their body at most once).
    Yields: the body (then the ``else`` block, unless the final ``break``
    skips it) in place of the loop, the final ``break`` dropped, with each
    read of a ``for`` target replaced by the first item (``0`` for
    ``range(n)``, the first element of a literal, ``it[0]`` otherwise; the
    index and item of ``enumerate``); then the body after an assignment
    ``target = first item``.
    Notes: a ``while`` loop that does not end in ``break`` → its body, and a
    loop whose target is unused → its body, are ``hoist-block``'s; proposals
    that would not shrink the program are not made.
    """

    name = "loop-to-body"
    node_kinds = frozenset({"For", "While"})
    ranked = True

    def proposals(self, a: Analysis, loop: ast.For | ast.While) -> Iterator[Opportunity]:
        loop_id = _owns_blocks(a, loop, ("body", "orelse"))
        if loop_id is None:
            return
        final_break = _final_break(a, loop)
        if final_break is None and (isinstance(loop, ast.While) or _jumps_out(loop.body)):
            return
        indent = a.tree.indents[loop_id]
        rest: list[Part] = [BlockHole(loop_id, "body")]
        if loop.orelse and final_break is None:
            rest += ["\n" + indent, BlockHole(loop_id, "orelse")]
        once: dict[int, Edit] = {} if final_break is None else {final_break: DROP}
        variants: list[dict[int, Edit]] = []
        if isinstance(loop, ast.While):
            variants.append({loop_id: Replacement(tuple(rest)), **once})
        else:
            substituted = _substitute_target(a, loop, rest)
            if substituted is not None:
                variants.append({**substituted, **once})
            first = _first_item(a, loop.iter)
            target_id = a.id(loop.target)
            if first is not None and target_id is not None:
                parts, _ = first
                variants.append(
                    {loop_id: Replacement((Hole(target_id), " = ", *parts, "\n" + indent, *rest)), **once}
                )
        for rank, edits in enumerate(e for e in variants if shrinks(a, e)):
            yield Opportunity(self.name, loop_id, edits, rank)


def _final_break(a: Analysis, loop: ast.For | ast.While) -> int | None:
    """The id of the ``break`` that ends the loop's body, when nothing before it jumps."""
    body = loop.body
    if len(body) < 2 or not isinstance(body[-1], ast.Break) or _jumps_out(body[:-1]):
        return None
    return a.id(body[-1])


def _substitute_target(a: Analysis, loop: ast.For, rest: list[Part]) -> dict[int, Edit] | None:
    components = _components(a, loop.target, loop.iter)
    loop_id = a.id(loop)
    if components is None or loop_id is None:
        return None
    scope = a.scope(loop)
    edits: dict[int, Edit] = {loop_id: Replacement(tuple(rest))}
    for name, (parts, atomic) in components.items():
        bindings = a.bindings_of(scope, name)
        if len(bindings) != 1 or not _inside_any(a, bindings[0], [loop.target]):
            return None
        for use in a.uses_of(scope, name):
            use_id = a.id(use)
            if use_id is None or not _inside_any(a, use, loop.body):
                return None
            edits[use_id] = _first_at(a, parts, atomic, use)
    return edits


def _first_at(a: Analysis, parts: list[Part], atomic: bool, use: ast.Name) -> Replacement:
    """The first item's parts, parenthesised as the place of ``use`` needs."""
    parent = a.parent(use)
    if parts == ["0"]:
        in_attribute = isinstance(parent, ast.Attribute) and parent.value is use
        return Replacement.text("(0)" if in_attribute else "0")
    if atomic:
        return Replacement(tuple(parts))
    if len(parts) == 1 and isinstance(parts[0], Hole):
        hole = parts[0]
        before, after = wrap(a, a.node(hole.node), a.tree.source(hole.node), use)
        return Replacement((before, hole, after))
    return Replacement(("(", *parts, ")"))


def _inside_any(a: Analysis, node: ast.AST, roots: list[ast.stmt] | list[ast.expr]) -> bool:
    wanted = {id(r) for r in roots}
    current: ast.AST | None = node
    while current is not None:
        if id(current) in wanted:
            return True
        current = a.parent(current)
    return False


class WithToBody(ScopeTransform[ast.With]):
    """Replace a ``with`` statement with its body, binding each ``as`` target to its context expression.

    Applies to: ``with`` statements with at least one ``as`` target.
    Yields: ``target = expression`` for each item with a target, then the
    body, re-indented (items without a target are left out).
    Notes: the body alone is ``hoist-block``'s.
    """

    name = "with-to-body"
    node_kinds = frozenset({"With"})

    def proposals(self, a: Analysis, statement: ast.With) -> Iterator[Opportunity]:
        if not any(i.optional_vars for i in statement.items):
            return
        statement_id = _owns_blocks(a, statement, ("body",))
        if statement_id is None:
            return
        indent = a.tree.indents[statement_id]
        parts: list[Part] = []
        for item in statement.items:
            if item.optional_vars is None:
                continue
            target_id, value_id = a.id(item.optional_vars), a.id(item.context_expr)
            if target_id is None or value_id is None:
                return
            text = a.source(item.context_expr)
            bare = (
                "\n" not in text.strip() or stands_alone(item.context_expr, text)
            ) and not isinstance(item.context_expr, (ast.NamedExpr, ast.Yield, ast.YieldFrom))
            opening, closing = ("", "") if bare else ("(", ")")
            parts += [Hole(target_id), f" = {opening}", Hole(value_id), f"{closing}\n{indent}"]
        parts.append(BlockHole(statement_id, "body"))
        yield Opportunity(self.name, statement_id, {statement_id: Replacement(tuple(parts))})


class TryToBody(ScopeTransform[ast.Try]):
    """Replace a ``try`` statement with the path that raises nothing: body, ``else``, ``finally``.

    Applies to: ``try`` statements with an ``else`` or a ``finally`` block.
    Yields: the body, the ``else`` block and the ``finally`` block, one after
    the other, re-indented.
    Notes: a single block in place of the ``try`` is ``hoist-block``'s.
    """

    name = "try-to-body"
    node_kinds = frozenset({"Try", "TryStar"})

    def proposals(self, a: Analysis, statement: ast.Try) -> Iterator[Opportunity]:
        if not statement.orelse and not statement.finalbody:
            return
        statement_id = _owns_blocks(a, statement, ("body", "orelse", "finalbody"))
        if statement_id is None:
            return
        indent = a.tree.indents[statement_id]
        parts: list[Part] = []
        for name in ("body", "orelse", "finalbody"):
            if getattr(statement, name):
                parts += (["\n" + indent] if parts else []) + [BlockHole(statement_id, name)]
        yield Opportunity(self.name, statement_id, {statement_id: Replacement(tuple(parts))})


class ReturnValueDrop(FunctionTransform):
    """Drop every return value of a function at once: ``return X`` → ``return``.

    Applies to: functions with two or more ``return X`` statements of their own.
    Yields: all of them as bare ``return`` s, in one proposal.
    Notes: one ``return X`` → ``return`` alone is ``delete``'s (it drops the value).
    """

    name = "return-value-drop"

    def proposals(self, a: Analysis, function: Function) -> Iterator[Opportunity]:
        values = [
            a.id(n.value)
            for n in a.own_nodes(function)
            if isinstance(n, ast.Return) and n.value is not None
        ]
        droppable = [v for v in values if v is not None and v in a.tree.drop_spans]
        if len(droppable) >= 2 and len(droppable) == len(values):
            yield Opportunity(self.name, a.id(function), dict.fromkeys(droppable, DROP))  # type: ignore[arg-type]  # numbered


class FunctionToBody(CallInliner):
    """Replace the only call of a function, a statement at module level, with the function's body.

    Applies to: a plain function of the file (no decorators, not a
    generator, not async) called exactly once, by a statement ``f(...)`` or
    ``x = f(...)`` that runs at module level (``if __name__ == "__main__":``
    included), whose only ``return`` ends its body.
    Yields: the parameters bound by assignments, then the body, re-indented
    to the call; a final ``return v`` → ``x = v`` (or ``v``); the definition dropped.
    Notes: a proposal that would not shrink the program is not made.
    """

    name = "function-to-body"

    def proposals(self, a: Analysis, site: Site) -> Iterator[Opportunity]:
        if site.receiver is not None or a.scope(site.call).node is not a.module:
            return
        edits = inline_statements(a, site)
        if edits is not None and shrinks(a, edits, parse=True):
            yield Opportunity(self.name, a.id(site.function), edits)  # type: ignore[arg-type]  # numbered
