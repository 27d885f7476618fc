"""The classic four replacements of the design card.

Assignment → ``pass``; comparison → ``False`` / ``True``; boolean operation
→ a constant or one operand; ``if`` → its body or its else-body.
"""

from __future__ import annotations

from collections.abc import Iterator

from astreduce.reducer import BlockHole, Edit, Hole, Replacement
from astreduce.transforms import Transform
from astreduce.tree import Node, Tree


class AssignToPass(Transform):
    """Replace an assignment with ``pass``.

    Applies to: Assign, AugAssign, AnnAssign statements.
    Yields: ``pass``, which keeps the enclosing block non-empty.
    Notes: runs after ``delete``; pays off when the statement is a block's only child.
    """

    name = "assign-to-pass"
    phase = "classic"
    node_kinds = frozenset({"Assign", "AugAssign", "AnnAssign"})

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        yield "pass"


class CompareToBool(Transform):
    """Replace a comparison with ``False`` or ``True``.

    Applies to: Compare expressions.
    Yields: ``False``, then ``True``.
    """

    name = "compare-to-bool"
    phase = "classic"
    node_kinds = frozenset({"Compare"})

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        yield "False"
        yield "True"


class BoolOpToOperand(Transform):
    """Replace ``a and b`` / ``a or b`` with a constant or one operand.

    Applies to: BoolOp expressions.
    Yields: ``True``, ``False``, then each operand in order.
    """

    name = "boolop-to-operand"
    phase = "classic"
    node_kinds = frozenset({"BoolOp"})

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        yield "True"
        yield "False"
        for operand in tree.fields[node.id].get("values", ()):
            yield Replacement((Hole(operand),))


class IfToBody(Transform):
    """Replace an ``if`` statement with its body or its else-body, re-indented.

    Applies to: If statements (``if __name__ == "__main__":`` included).
    Yields: the body, then the ``else`` (or ``elif``) part when there is one.
    """

    name = "if-to-body"
    phase = "classic"
    priority = 10
    node_kinds = frozenset({"If"})

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        yield Replacement((BlockHole(node.id, "body"),))
        if tree.fields[node.id].get("orelse"):
            yield Replacement((BlockHole(node.id, "orelse"),))
