"""Expression hoisting (grammar-based reduction): an expression → one of its sub-expressions."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from astreduce.reducer import Edit, Hole, Replacement
from astreduce.transforms import Transform
from astreduce.tree import Node, Tree

EXPRESSIONS = frozenset(
    name for name in dir(ast) if isinstance(getattr(ast, name), type) and issubclass(getattr(ast, name), ast.expr)
)
#: Fields whose expressions are assigned to, not evaluated.
STORE_FIELDS = frozenset({"targets", "target", "optional_vars"})
#: How far below a node a replacement may come from, and how many are proposed.
_DEPTH = 2
_LIMIT = 6


def sub_expressions(tree: Tree, node_id: int, depth: int = _DEPTH) -> list[int]:
    """Expression descendants of ``node_id`` up to ``depth`` levels, nearest first.

    Keywords and comprehensions are looked through (``f(x=a)`` offers ``a``);
    assignment targets are never offered.
    """
    found: list[int] = []
    level = [node_id]
    for _ in range(depth):
        following = [child for current in level for child in _expression_children(tree, current)]
        found.extend(following)
        level = following
    return found


def _expression_children(tree: Tree, node_id: int) -> Iterator[int]:
    for child in tree.children(node_id):
        kind, field = tree.nodes[child].kind, tree.nodes[child].field
        if field in STORE_FIELDS:
            continue
        if kind in EXPRESSIONS:
            yield child
        elif kind in ("keyword", "comprehension"):
            yield from _expression_children(tree, child)


class HoistExpression(Transform):
    """Replace an expression with one of its sub-expressions (GRABR, Perses).

    Applies to: every expression that is not an assignment target: a call →
    an argument or the callee, ``a + b`` → ``a`` or ``b``, subscript and
    attribute → their value, a conditional expression → a branch, a lambda →
    its body, ``await x`` → ``x``, a collection → one of its items.
    Yields: sub-expressions one level down first, then two levels down.
    """

    name = "hoist-expression"
    phase = "expressions"
    node_kinds = EXPRESSIONS

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        if node.field in STORE_FIELDS or node.kind == "JoinedStr":
            return
        for child in sub_expressions(tree, node.id)[:_LIMIT]:
            if tree.nodes[child].kind != "Starred":
                yield Replacement((Hole(child),))


class FStringToString(Transform):
    """Replace an f-string with a plain string of its literal parts.

    Applies to: JoinedStr.
    Yields: the literal text without the replacement fields, as a plain string.
    """

    name = "fstring-to-string"
    phase = "expressions"
    node_kinds = frozenset({"JoinedStr"})

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        try:
            parsed = ast.parse(tree.source(node.id).strip(), mode="eval").body
        except SyntaxError:
            return
        if isinstance(parsed, ast.JoinedStr):
            literal = "".join(
                v.value for v in parsed.values if isinstance(v, ast.Constant) and isinstance(v.value, str)
            )
            yield repr(literal)
