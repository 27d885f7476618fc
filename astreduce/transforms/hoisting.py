"""Statement hoisting: replace a compound statement with one of its blocks."""

from __future__ import annotations

from collections.abc import Iterator

from astreduce.source.render import BlockHole, Edit, Replacement
from astreduce.transforms import Transform
from astreduce.source.tree import Node, Tree

#: Blocks worth hoisting, per statement kind, in the order they are proposed.
_BLOCKS = {
    "For": ("body", "orelse"),
    "AsyncFor": ("body", "orelse"),
    "While": ("body", "orelse"),
    "With": ("body",),
    "AsyncWith": ("body",),
    "Try": ("body", "orelse", "finalbody"),
    "TryStar": ("body", "orelse", "finalbody"),
    "FunctionDef": ("body",),
    "AsyncFunctionDef": ("body",),
    "ClassDef": ("body",),
}


class HoistBlock(Transform):
    """Replace a loop, ``with``, ``try``, function or class with one of its blocks.

    Applies to: For, While, With, Try (body, each handler's body, ``else``,
    ``finally``), function and class definitions (their body), ``match``
    (each case's body).
    Yields: each block, re-indented to the statement's indentation.
    Notes: ``if`` belongs to ``if-to-body``.
    """

    name = "hoist-block"
    phase = "hoist"
    node_kinds = frozenset(_BLOCKS) | {"Match"}

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        fields = tree.fields[node.id]
        for block in _BLOCKS.get(node.kind, ()):
            if fields.get(block):
                yield Replacement((BlockHole(node.id, block),))
            if block == "body":
                for owner in fields.get("handlers", ()):
                    if (owner, "body") in tree.blocks:
                        yield Replacement((BlockHole(owner, "body"),))
        for case in fields.get("cases", ()):
            if (case, "body") in tree.blocks:
                yield Replacement((BlockHole(case, "body"),))
