"""Simplification: expressions → the simplest constants; numbers and strings → smaller ones."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from astreduce.reducer import Edit
from astreduce.transforms import Transform
from astreduce.transforms.expressions import EXPRESSIONS, STORE_FIELDS
from astreduce.tree import Node, Tree

#: Constants tried in place of an expression, simplest first.
CONSTANTS = ("0", "None", "''", "()")
#: Where a value is iterated, an empty tuple is the constant most likely to keep working.
_ITERATED = frozenset({("For", "iter"), ("AsyncFor", "iter"), ("comprehension", "iter"), ("Starred", "value")})


def constants_for(tree: Tree, node: Node) -> tuple[str, str]:
    """The two constants worth trying for ``node``, the likeliest first.

    Trying all four everywhere costs a test per expression and constant for
    little gain (measured on the corpora: the third and fourth choices almost
    never applied); the context picks two.
    """
    parent = tree.nodes[node.parent]
    if (parent.kind, node.field) in _ITERATED or (parent.kind == "Compare" and node.field == "comparators"):
        return ("()", "''")
    if parent.kind == "JoinedStr" or (parent.kind == "BinOp" and any(
        tree.nodes[c].constant == "str" for c in tree.children(parent.id)
    )):
        return ("''", "0")
    return ("0", "None")


def _literal(tree: Tree, node: Node) -> object:
    try:
        return ast.literal_eval(tree.source(node.id).strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
        return None


class ExpressionToConstant(Transform):
    """Replace an expression with a constant: ``0``, ``None``, ``''`` or ``()``.

    Applies to: every evaluated expression that is not already a constant
    (names included: that unties a use from its definition).
    Yields: two constants chosen by context: ``()`` and ``''`` where the value
    is iterated or searched, ``''`` and ``0`` next to strings, else ``0`` and ``None``.
    """

    name = "to-constant"
    phase = "simplify"
    node_kinds = EXPRESSIONS - {"Constant", "Starred", "JoinedStr"}

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        if node.field in STORE_FIELDS or node.field in ("decorator_list",):
            return
        parent = tree.nodes[node.parent]
        if parent.kind in ("Attribute", "Subscript") and node.field == "value" and parent.field in STORE_FIELDS:
            return
        yield from constants_for(tree, node)


class SimplifyNumber(Transform):
    """Replace a number with ``0`` or ``1``.

    Applies to: int, float and complex constants other than 0 and 1.
    Yields: ``0``, then ``1``.
    """

    name = "simplify-number"
    phase = "simplify"
    node_kinds = frozenset({"Constant"})

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        if node.constant not in ("int", "float", "complex"):
            return
        text = tree.source(node.id).strip()
        for small in ("0", "1"):
            if text != small:
                yield small


class ShortenString(Transform):
    """Replace a string or bytes constant with an empty or shorter one.

    Applies to: str and bytes constants (implicit concatenations included).
    Yields: the empty string, then the first half, then all but the last character.
    """

    name = "shorten-string"
    phase = "simplify"
    node_kinds = frozenset({"Constant"})

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        if node.constant not in ("str", "bytes"):
            return
        value = _literal(tree, node)
        if not isinstance(value, (str, bytes)) or not value:
            return
        seen = {repr(value)}
        for shorter in (value[:0], value[: len(value) // 2], value[:-1]):
            text = repr(shorter)
            if text not in seen and len(text) < len(tree.source(node.id)):
                seen.add(text)
                yield text
