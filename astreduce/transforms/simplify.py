"""Simplification: expressions → the simplest constants; numbers and strings → smaller ones."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from astreduce.source.render import Edit
from astreduce.transforms import Transform
from astreduce.transforms.expressions import EXPRESSIONS, is_store, owns_call_parentheses
from astreduce.source.tree import Node, Tree

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


def _is_attribute_value(tree: Tree, node: Node) -> bool:
    return node.field == "value" and tree.nodes[node.parent].kind == "Attribute"


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
    Notes: never an assignment target (nor an element of one), a decorator,
    the class of a class pattern or a part of a dotted name in a pattern; ``None`` instead of ``0`` before an attribute
    (``0.x`` reads as a float); ``(0)`` for a generator expression that is a
    call's only argument, whose parentheses are the call's.
    """

    name = "to-constant"
    node_kinds = EXPRESSIONS - {"Constant", "Starred", "JoinedStr"}

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        if is_store(tree, node.id) or node.field in ("decorator_list",):
            return
        parent = tree.nodes[node.parent]
        if parent.kind in ("Attribute", "Subscript") and node.field == "value" and is_store(tree, parent.id):
            return
        if parent.kind == "MatchClass" and node.field == "cls":
            return  # a class pattern needs a name: ``case 0(x):`` does not parse
        if parent.kind in EXPRESSIONS and _in_pattern(tree, node):
            return  # a value pattern is a dotted name: ``case None.x:`` does not parse
        constants: tuple[str, ...] = constants_for(tree, node)
        if _is_attribute_value(tree, node):
            constants = tuple(dict.fromkeys("None" if c == "0" else c for c in constants))  # ``0.x`` is a float
        for constant in constants:
            # a generator expression may be a call's only argument and own the call's parentheses
            yield f"({constant})" if owns_call_parentheses(tree, node.id) else constant


def _in_pattern(tree: Tree, node: Node) -> bool:
    """Whether the expression is part of a ``match`` pattern (the nearest node that is no expression is one)."""
    current = node
    while current.parent >= 0 and current.kind in EXPRESSIONS:
        current = tree.nodes[current.parent]
    return current.kind.startswith("Match") and current.kind != "Match"


class SimplifyNumber(Transform):
    """Replace a number with ``0`` or ``1``.

    Applies to: int, float and complex constants other than 0 and 1, except
    before an attribute (``(255).bit_length()``: ``0.bit_length()`` does not parse).
    Yields: ``0``, then ``1``.
    """

    name = "simplify-number"
    node_kinds = frozenset({"Constant"})

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        if node.constant not in ("int", "float", "complex"):
            return
        if _is_attribute_value(tree, node):
            return  # ``0.real`` would read as the float ``0.`` followed by a name
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
