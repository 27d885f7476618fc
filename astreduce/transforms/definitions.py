"""Definitions: drop annotations, defaults, docstrings, ``async`` and base classes."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator

from astreduce.source.render import DROP, Edit, Hole, Replacement, Slice
from astreduce.source.tree import Node, Tree
from astreduce.transforms import Opportunity, Transform
from astreduce.transforms.statements import with_earlier_defaults

_ASYNC = re.compile(r"async\s+")


class DropAnnotation(Transform):
    """Drop a type annotation: of a parameter, a return value, or an annotated assignment.

    Applies to: annotations of ``arg`` and return annotations (dropped with
    their ``:`` or ``->``); AnnAssign with a value (``x: T = v`` → ``x = v``).
    Yields: the definition without the annotation.
    """

    name = "drop-annotation"

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        if node.field in ("annotation", "returns") and node.id in tree.drop_spans:
            yield DROP
        elif node.kind == "AnnAssign":
            fields = tree.fields[node.id]
            if fields.get("value"):
                yield Replacement((Hole(fields["target"][0]), " = ", Hole(fields["value"][0])))


class DropDefault(Transform):
    """Drop a parameter's default value together with its ``=``.

    Applies to: defaults of positional and keyword-only parameters.
    Yields: the parameter without a default; a positional default goes together
    with the positional defaults before it (``def f(a, b=1)`` is valid,
    ``def f(a=1, b)`` is not).
    """

    name = "drop-default"

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        if node.field in ("defaults", "kw_defaults") and node.id in tree.drop_spans:
            yield DROP

    def opportunities(self, tree: Tree) -> Iterator[Opportunity]:
        for opportunity in super().opportunities(tree):
            yield dataclasses.replace(opportunity, edits=with_earlier_defaults(tree, opportunity.target))


class DropDocstring(Transform):
    """Drop the docstring of a module, class or function.

    Applies to: a string expression statement that opens a body.
    Yields: the drop (an emptied body becomes ``pass``).
    """

    name = "drop-docstring"
    node_kinds = frozenset({"Expr"})

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        parent = tree.nodes[node.parent]
        if node.field != "body" or node.index != 0:
            return
        if parent.kind not in ("Module", "ClassDef", "FunctionDef", "AsyncFunctionDef"):
            return
        value = tree.child(node.id, "value")
        if value is not None and tree.nodes[value].constant == "str":
            yield DROP


class DropAsync(Transform):
    """Turn ``async def``, ``async for`` and ``async with`` into their plain forms; ``await x`` → ``x``.

    Applies to: AsyncFunctionDef, AsyncFor, AsyncWith, Await.
    Yields: the statement without ``async``, or the awaited expression.
    """

    name = "drop-async"
    node_kinds = frozenset({"AsyncFunctionDef", "AsyncFor", "AsyncWith", "Await"})

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        if node.kind == "Await":
            value = tree.child(node.id, "value")
            if value is not None:
                yield Replacement((Hole(value),))
            return
        match = _ASYNC.search(tree.text, node.start, node.end)
        if match is not None:
            yield Replacement((Slice(node.start, match.start()), Slice(match.end(), node.end)))


class DropBases(Transform):
    """Drop every base class and keyword of a class at once: ``class A(B, metaclass=M):`` → ``class A:``.

    Applies to: ClassDef with bases or keywords, or with an empty list
    (``class A():``, what deleting the bases one by one leaves).
    Yields: the class without its parenthesised list.
    """

    name = "drop-bases"
    node_kinds = frozenset({"ClassDef"})

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        fields = tree.fields[node.id]
        listed = fields.get("bases", ()) + fields.get("keywords", ())
        if not listed:
            empty = _EMPTY_BASES.match(tree.text, node.start)
            if empty is not None:
                yield Replacement((Slice(node.start, empty.start(1)), Slice(empty.end(1), node.end)))
            return
        first = min(tree.nodes[i].start for i in listed)
        last = max(tree.nodes[i].end for i in listed)
        text = tree.text
        open_paren = text.rfind("(", node.start, first)
        close_paren = closing_parenthesis(text, last)
        if open_paren < 0 or close_paren < 0:
            return
        yield Replacement((Slice(node.start, open_paren), Slice(close_paren + 1, node.end)))


#: ``class NAME ( )``: the empty parentheses are group 1.
_EMPTY_BASES = re.compile(r"class\s+\w+\s*(\(\s*\))")


def closing_parenthesis(text: str, position: int) -> int:
    """The ``)`` that closes a list whose last element ends at ``position`` (-1 if something else follows)."""
    while position < len(text):
        char = text[position]
        if char == ")":
            return position
        if char == "#":
            position = text.find("\n", position)
            if position < 0:
                return -1
        elif char not in " \t\r\n\\,":
            return -1
        position += 1
    return -1
