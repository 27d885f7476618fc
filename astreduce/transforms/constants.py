"""Constants: a name → the constant it is bound to; an expression → the value it had in a run.

The values of a run come from a :class:`Recorder` the transform is handed:
a transform only proposes, and never runs a program itself
(:mod:`astreduce.run.trace` does the running).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Protocol

from astreduce.source.render import DROP, Edit, Replacement
from astreduce.transforms import Opportunity, ScopeTransform, Transform
from astreduce.source.measure import size_change
from astreduce.source.precedence import wrap
from astreduce.source.scope import Analysis, analyse, shrinks
from astreduce.source.tree import Tree


def is_constant(node: ast.AST) -> bool:
    """A literal constant: ``1``, ``-2.5``, ``'s'``, ``None``, or a tuple of those (not an f-string)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return isinstance(node.operand, ast.Constant) and isinstance(
            node.operand.value, (int, float, complex)
        )
    if isinstance(node, ast.Tuple):
        return all(is_constant(e) for e in node.elts)
    return False


class NameToConstant(ScopeTransform[ast.stmt]):
    """Replace a module-level name bound once to a constant with the constant, everywhere.

    Applies to: ``NAME = CONSTANT`` (a number, a string, ``None``, a tuple
    of constants) at module level, the only binding of ``NAME``, read
    somewhere and never inside an f-string.
    Yields: every read → the constant's text, the binding dropped, in one proposal.
    Notes: a proposal that would not shrink the program is not made.
    """

    name = "name-to-constant"
    node_kinds = frozenset({"Assign", "AnnAssign"})

    def walk(self, a: Analysis) -> list[ast.stmt]:
        """The module's own statements (not those inside its blocks)."""
        return a.module.body

    def proposals(self, a: Analysis, statement: ast.stmt) -> Iterator[Opportunity]:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            target, value = statement.target, statement.value
        else:
            return
        if not isinstance(target, ast.Name) or not is_constant(value):
            return
        module = a.module_scope
        if a.bindings_of(module, target.id) != [target]:
            return
        uses = a.uses_of(module, target.id)
        statement_id, value_id = a.id(statement), a.id(value)
        if not uses or statement_id is None or value_id is None:
            return
        text = a.source(value).strip()
        edits: dict[int, Edit] = {statement_id: DROP}
        for use in uses:
            use_id = a.id(use)
            if use_id is None:
                return
            before, after = wrap(a, value, text, use)
            edits[use_id] = Replacement.text(before + text + after)
        if shrinks(a, edits):
            yield Opportunity(self.name, statement_id, edits)


# --- values from a run ----------------------------------------------------------

#: Expression kinds whose value is worth recording.
_SKIP_KINDS = (
    ast.Constant,
    ast.JoinedStr,
    ast.Starred,
    ast.Slice,
    ast.Lambda,
    ast.Yield,
    ast.YieldFrom,
    ast.FormattedValue,
)
#: Fields whose expressions are not evaluated as values where they stand.
_SKIP_FIELDS = frozenset(
    {"annotation", "returns", "decorator_list", "targets", "target", "optional_vars"}
)


class Recorder(Protocol):
    """Records the values of a program's expressions in a run: what ``value-from-trace`` is given."""

    def record(self, text: str, candidates: list[int]) -> tuple[dict[int, str], frozenset[int]]:
        """Each candidate node's first literal value (its ``repr``), and the nodes whose value changed later."""
        ...


class ValueFromTrace(Transform):
    """Replace an expression with the value it had in a run of the program, when that value is a literal.

    Applies to: evaluated expressions (not constants, call targets,
    annotations, decorators or assignment targets) whose first value in one
    traced run of the current program was an int, float, complex, str, bytes,
    bool or ``None``, or a small tuple, list, set or dict of those.
    Yields: the value's ``repr``, when that is smaller than the expression.
    Not for an expression in a ``while`` loop whose value changed during the
    run (a counter, the test that ends the loop): its first value would make
    the loop run forever (stdlib_argparse: 23 candidates that each cost a
    CPU budget).
    Notes: the transform never runs anything: it asks a recorder for the
    values (:class:`~astreduce.run.trace.Tracer` runs the program once
    per text, in a child process with a timeout, as the oracles run a
    candidate). :meth:`configure` hands it a recorder set up as the oracle
    runs the candidate (the appended test, the input's folder, the
    interpreter); without one it proposes nothing, since only the oracle
    knows how the program runs.
    """

    name = "value-from-trace"
    node_kinds = frozenset()
    recorder: Recorder | None = None
    """Where the values come from (``None``: nowhere, so nothing is proposed)."""
    enabled: bool = True
    """False when the oracle does not run the program as Python (a command oracle)."""

    def configure(self, *, recorder: Recorder | None = None, enabled: bool = True) -> None:
        """Ask ``recorder`` for values (see the class notes); ``enabled=False`` proposes nothing."""
        self.recorder = recorder
        self.enabled = enabled

    def opportunities(self, tree: Tree) -> Iterator[Opportunity]:
        if not self.enabled or self.recorder is None:
            return
        a = analyse(tree)
        if a is None:
            return
        candidates = [i for i, node in enumerate(a.asts) if _recordable(a, node)]
        if not candidates:
            return
        values, varying = self.recorder.record(tree.text, candidates)
        for node_id in candidates:
            shown = values.get(node_id)
            if shown is None:
                continue
            node = a.asts[node_id]
            if node_id in varying and _in_while_loop(a, node):
                continue  # its first value would make the loop run forever
            old = tree.source(node_id)
            try:
                parsed = ast.parse(shown, mode="eval").body
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                continue
            before, after = wrap(a, parsed, shown, node)
            new = before + shown + after
            if size_change(old, new) < (0, 0, 0):
                yield Opportunity(self.name, node_id, {node_id: Replacement.text(new)})


def _in_while_loop(a: Analysis, node: ast.AST) -> bool:
    """Whether ``node`` is in a ``while`` loop's test or body (in its own function)."""
    current = a.parent(node)
    while current is not None and not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
        if isinstance(current, ast.While):
            return True
        current = a.parent(current)
    return False


def _recordable(a: Analysis, node: ast.AST) -> bool:
    if not isinstance(node, ast.expr) or isinstance(node, _SKIP_KINDS):
        return False
    context = getattr(node, "ctx", None)
    if context is not None and not isinstance(context, ast.Load):
        return False
    node_id = a.id(node)
    if node_id is None:
        return False
    parent = a.parent(node)
    field = a.tree.nodes[node_id].field
    if field in _SKIP_FIELDS:
        return False
    if isinstance(parent, ast.Call) and field == "func":
        return False  # a function is never a literal
    if (
        isinstance(parent, (ast.Attribute, ast.Subscript))
        and field == "value"
        and not isinstance(getattr(parent, "ctx", None), ast.Load)
    ):
        return False  # ``obj.x = 1``: replacing ``obj`` would assign to a literal
    current: ast.AST | None = parent
    while current is not None and not isinstance(current, ast.stmt):
        if isinstance(current, ast.pattern):
            return False  # a value pattern must stay a dotted name or a literal
        current = a.parent(current)
    return True
