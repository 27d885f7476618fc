"""Tuples: drop a position nobody reads from a tuple assignment, or from a function's returned tuples.

``delete`` drops one element of a tuple at a time and keeps the tuple a
tuple (``l, = 0,``), so ``k, l = 0, 0`` with ``k`` unread cannot lose ``k``
without also breaking ``l``, and a function returning ``total, count`` to
callers that only read ``count`` keeps both forever. These transforms drop a
position everywhere it is tied to, in one candidate.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from astreduce.source.render import Edit, Replacement
from astreduce.transforms import Function, FunctionTransform, Opportunity, ScopeTransform
from astreduce.transforms.parameters import call_sites
from astreduce.source.scope import Analysis


def _plain(elements: Sequence[ast.expr]) -> bool:
    return len(elements) >= 2 and not any(isinstance(e, ast.Starred) for e in elements)


def _unread(a: Analysis, target: ast.expr) -> bool:
    """Whether ``target`` is a local variable of a function that is never read there.

    Module-level names are never taken: an appended test may read them.
    """
    if not isinstance(target, ast.Name):
        return False
    scope = a.scope(target)
    if not scope.is_function or target.id in scope.globals or a.declared_nonlocal(target.id):
        return False
    return not a.uses_of(scope, target.id)


def _without(a: Analysis, elements: Sequence[ast.expr], index: int) -> str:
    """The elements but ``index``, as a bare tuple (one element left: that element alone)."""
    return ", ".join(a.source(e) for i, e in enumerate(elements) if i != index)


def _replace_element(a: Analysis, edits: dict[int, Edit], tuple_node: ast.Tuple | ast.List, index: int) -> bool:
    node_id = a.id(tuple_node)
    if node_id is None or any(a.id(e) is None for e in tuple_node.elts):
        return False
    edits[node_id] = Replacement.text(_without(a, tuple_node.elts, index))
    return True


class DropTuplePair(ScopeTransform[ast.Assign]):
    """Drop a variable and its value from a tuple assignment.

    Applies to: ``a, b = x, y`` (as many targets as values, no starred
    element), for each target that is a plain name.
    Yields: that target and its value dropped (``b = y`` when one pair is
    left); targets no one reads first (the others are the oracle's call: an
    appended test may read a module's names, a later statement may not).
    """

    name = "drop-tuple-pair"
    node_kinds = frozenset({"Assign"})

    def proposals(self, a: Analysis, node: ast.Assign) -> Iterator[Opportunity]:
        if len(node.targets) != 1:
            return
        target, value = node.targets[0], node.value
        if not (isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List))):
            return
        if not (_plain(target.elts) and len(target.elts) == len(value.elts) and _plain(value.elts)):
            return
        names = [i for i, e in enumerate(target.elts) if isinstance(e, ast.Name)]
        for index in sorted(names, key=lambda i: not _unread(a, target.elts[i])):
            edits: dict[int, Edit] = {}
            if _replace_element(a, edits, target, index) and _replace_element(a, edits, value, index):
                yield Opportunity(self.name, a.id(target.elts[index]), edits)  # type: ignore[arg-type]  # ids checked


class DropReturnedPosition(FunctionTransform):
    """Drop a position of the tuples a function returns that no caller reads.

    Applies to: functions and methods defined in the file (not generators)
    whose every ``return`` gives a tuple of the same length n >= 2, and whose
    every use is a call unpacked at once into n targets (``a, b = f(...)``,
    as :func:`~astreduce.transforms.parameters.call_sites` finds them), where
    at position i every unpacking binds a local name its function never reads.
    Yields: position i dropped from every returned tuple and every unpacking
    (``return x`` and ``b = f(...)`` when one position is left).
    """

    name = "drop-returned-position"

    def proposals(self, a: Analysis, function: Function) -> Iterator[Opportunity]:
        returns: list[ast.Tuple] = []
        for node in a.own_nodes(function):
            if isinstance(node, (ast.Yield, ast.YieldFrom)):
                return
            if isinstance(node, ast.Return):
                if not (isinstance(node.value, ast.Tuple) and _plain(node.value.elts)):
                    return
                returns.append(node.value)
        if not returns or len({len(r.elts) for r in returns}) != 1:
            return
        width = len(returns[0].elts)
        sites = call_sites(a, function)
        if not sites:
            return
        unpackings: list[ast.Tuple | ast.List] = []
        for call, _ in sites:
            statement = a.parent(call)
            if not (isinstance(statement, ast.Assign) and statement.value is call and len(statement.targets) == 1):
                return
            target = statement.targets[0]
            if not (isinstance(target, (ast.Tuple, ast.List)) and _plain(target.elts) and len(target.elts) == width):
                return
            unpackings.append(target)
        for index in range(width):
            if not all(_unread(a, u.elts[index]) for u in unpackings):
                continue
            edits: dict[int, Edit] = {}
            if all(_replace_element(a, edits, t, index) for t in [*returns, *unpackings]):
                yield Opportunity(self.name, a.id(returns[0].elts[index]), edits)  # type: ignore[arg-type]  # ids checked
