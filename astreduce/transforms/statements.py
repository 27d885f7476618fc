"""Deletion: drop statements, sequence elements, optional parts and ``else`` branches."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from astreduce.source.render import DROP, Edit, Replacement, Slice
from astreduce.transforms import Opportunity, Transform
from astreduce.source.tree import Node, Sequence, Tree


class Delete(Transform):
    """Drop a statement or an element of a sequence (an emptied block becomes ``pass``).

    Applies to: statements; call arguments and keywords; list, tuple, set and
    dict items; parameters (with their defaults); decorators; base classes;
    imported names; ``with`` items; ``except`` handlers; comprehension
    conditions; boolean operands; optional parts (defaults, annotations,
    ``as`` targets, ``assert`` messages, ``raise ... from`` causes, slice bounds).
    Yields: the drop, when the sequence keeps enough elements to stay valid; a
    positional default goes together with the positional defaults before it.
    """

    name = "delete"

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        place = tree.element_of.get(node.id)
        if place is not None:
            sequence, _ = place
            if len(sequence.elements) > sequence.min_kept and not _is_lone_pass(tree, node, sequence):
                yield DROP
        elif node.id in tree.drop_spans:
            yield DROP

    def candidates(self, tree: Tree) -> list[Node]:
        """The elements of sequences and the optional parts: only they may be dropped (a third of a
        tree's nodes, where every node was asked)."""
        return [tree.nodes[node_id] for node_id in sorted({*tree.element_of, *tree.drop_spans})]

    def opportunities(self, tree: Tree) -> Iterator[Opportunity]:
        for opportunity in super().opportunities(tree):
            if opportunity.edits.get(opportunity.target) is DROP:
                edits = with_earlier_defaults(tree, opportunity.target)
                if len(edits) > 1:
                    opportunity = dataclasses.replace(opportunity, edits=edits)
            yield opportunity


def with_earlier_defaults(tree: Tree, node_id: int) -> dict[int, Edit]:
    """Drops of a positional default and of every positional default before it.

    ``def f(a=1, b=2)`` cannot lose ``=2`` alone: a parameter without a default
    may not follow one with a default. Keyword-only defaults go one by one.
    """
    node = tree.nodes[node_id]
    if node.field != "defaults":
        return {node_id: DROP}
    defaults = tree.fields[node.parent].get("defaults", ())
    return {d: DROP for d in defaults[: defaults.index(node_id) + 1]}


def _is_lone_pass(tree: Tree, node: Node, sequence: Sequence) -> bool:
    """Dropping a block's only ``pass`` renders the same text: not worth a proposal."""
    is_lone = sequence.kind == "block" and len(sequence.elements) == 1 and sequence.empty == "pass"
    return node.kind == "Pass" and is_lone


class DropElse(Transform):
    """Drop the ``else`` (or ``elif`` chain) of an ``if``, a loop, or a ``try`` without ``finally``.

    Applies to: If, For, AsyncFor, While, Try with an ``orelse`` block.
    Yields: the statement up to the end of its body (or last handler).
    """

    name = "drop-else"
    node_kinds = frozenset({"If", "For", "AsyncFor", "While", "Try"})

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        fields = tree.fields[node.id]
        if not fields.get("orelse") or fields.get("finalbody"):
            return
        last = fields["handlers"][-1] if fields.get("handlers") else fields["body"][-1]
        yield Replacement((Slice(node.start, tree.nodes[last].end),))
