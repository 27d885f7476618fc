"""Deletion: drop statements, sequence elements, optional parts and ``else`` branches."""

from __future__ import annotations

from collections.abc import Iterator

from astreduce.reducer import DROP, Edit, Replacement, Slice
from astreduce.transforms import Transform
from astreduce.tree import Node, Tree


class Delete(Transform):
    """Drop a statement or an element of a sequence (an emptied block becomes ``pass``).

    Applies to: statements; call arguments and keywords; list, tuple, set and
    dict items; parameters (with their defaults); decorators; base classes;
    imported names; ``with`` items; ``except`` handlers; comprehension
    conditions; boolean operands; optional parts (defaults, annotations,
    ``as`` targets, ``assert`` messages, ``raise ... from`` causes, slice bounds).
    Yields: the drop, when the sequence keeps enough elements to stay valid.
    """

    name = "delete"
    phase = "delete"
    priority = 10

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        place = tree.element_of.get(node.id)
        if place is not None:
            sequence, _ = place
            if len(sequence.elements) > sequence.min_kept:
                yield DROP
        elif node.id in tree.drop_spans:
            yield DROP


class DropElse(Transform):
    """Drop the ``else`` (or ``elif`` chain) of an ``if``, a loop, or a ``try`` without ``finally``.

    Applies to: If, For, AsyncFor, While, Try with an ``orelse`` block.
    Yields: the statement up to the end of its body (or last handler).
    """

    name = "drop-else"
    phase = "delete"
    node_kinds = frozenset({"If", "For", "AsyncFor", "While", "Try"})

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        fields = tree.fields[node.id]
        if not fields.get("orelse") or fields.get("finalbody"):
            return
        last = fields["handlers"][-1] if fields.get("handlers") else fields["body"][-1]
        yield Replacement((Slice(node.start, tree.nodes[last].end),))
