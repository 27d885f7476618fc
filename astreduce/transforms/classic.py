"""The classic four replacements of the design card.

Assignment → ``pass``; comparison → ``False`` / ``True``; boolean operation
→ a constant or one operand; ``if`` → its body or its else-body.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator

from astreduce.source.render import BlockHole, Edit, Hole, Part, Replacement, Slice
from astreduce.transforms import Opportunity, Transform
from astreduce.transforms.expressions import hoisted
from astreduce.source.tree import Node, Tree


#: The ``else:`` line that opens an else-block (a comment may mention "else" too).
_ELSE = re.compile(r"^[ \t]*else[ \t]*:", re.MULTILINE)


class AssignToPass(Transform):
    """Replace an assignment with ``pass``.

    Applies to: Assign, AugAssign, AnnAssign statements.
    Yields: ``pass``, which keeps the enclosing block non-empty.
    Notes: runs after ``delete``; pays off when the statement is a block's only child.
    """

    name = "assign-to-pass"
    node_kinds = frozenset({"Assign", "AugAssign", "AnnAssign"})

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        yield "pass"


class AssignToValue(Transform):
    """Replace an assignment with its value, or drop one target of a chained assignment.

    Applies to: Assign, AugAssign and AnnAssign (with a value) statements.
    Yields: for ``a = b = v``, each target dropped (``b = v``, ``a = v``), most
    removing first; then the value as an expression statement (``v``), which
    keeps its side effects where ``assign-to-pass`` loses them.
    Notes: the value keeps its own text (parentheses included), so
    ``x = (y := f())`` becomes ``(y := f())``.
    """

    name = "assign-to-value"
    node_kinds = frozenset({"Assign", "AugAssign", "AnnAssign"})

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        fields = tree.fields[node.id]
        values = fields.get("value", ())
        if not values:
            return  # ``x: int``
        value = values[0]
        targets = list(fields.get("targets", ()))
        if len(targets) > 1:
            for dropped in sorted(targets, key=lambda t: tree.nodes[t].start - tree.nodes[t].end):
                parts: list[Part] = []
                for target in targets:
                    if target != dropped:
                        parts += [Hole(target), " = "]
                yield Replacement((*parts, Hole(value)))
        yield Replacement((Hole(value),))


class CompareToBool(Transform):
    """Replace a comparison with ``False`` or ``True``.

    Applies to: Compare expressions.
    Yields: ``False``, then ``True``.
    """

    name = "compare-to-bool"
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
    node_kinds = frozenset({"BoolOp"})

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        yield "True"
        yield "False"
        for operand in tree.fields[node.id].get("values", ()):
            replacement = hoisted(tree, node.id, operand)
            if replacement is not None:
                yield replacement


class IfToBody(Transform):
    """Replace an ``if`` statement with its body or its else-body, re-indented.

    Applies to: If statements (``if __name__ == "__main__":`` included).
    Yields: the body, then the ``else`` (or ``elif``) part when there is one. An
    ``elif`` keeps its place as the ``else`` of the ``if`` above it.
    """

    name = "if-to-body"
    node_kinds = frozenset({"If"})

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        fields = tree.fields[node.id]
        orelse = fields.get("orelse", ())
        if not tree.text.startswith("elif", node.start):
            yield Replacement((BlockHole(node.id, "body"),))
            if orelse:
                yield Replacement((BlockHole(node.id, "orelse"),))
            return
        # An ``elif`` is the else-branch of the ``if`` above it: its body stays in that
        # branch (``elif b: y`` → ``else: y``), else ``y`` would run unconditionally.
        test = tree.nodes[fields["test"][0]]
        body_end = tree.nodes[fields["body"][-1]].end
        yield Replacement(("else", Slice(tree.text.index(":", test.end), body_end)))
        if orelse and tree.text.startswith("elif", tree.nodes[orelse[0]].start):
            yield Replacement((BlockHole(node.id, "orelse"),))  # the next elif moves up
        elif orelse:
            keyword = _ELSE.search(tree.text, body_end, tree.nodes[orelse[0]].start)
            if keyword is not None:
                yield Replacement(("else", Slice(keyword.end() - 1, tree.nodes[orelse[-1]].end)))

    def opportunities(self, tree: Tree) -> Iterator[Opportunity]:
        # An elif's else-part starts with ``else``, valid only right after the
        # branch above it: ranked after every if's else-part, so that one pass
        # never combines it with hoisting the else-part of the if around it.
        for opportunity in super().opportunities(tree):
            is_elif = tree.text.startswith("elif", tree.nodes[opportunity.target].start)
            if is_elif and opportunity.rank == 1 and _starts_else(opportunity):
                opportunity = dataclasses.replace(opportunity, rank=2)
            yield opportunity


def _starts_else(opportunity: Opportunity) -> bool:
    edit = opportunity.edits[opportunity.target]
    return isinstance(edit, Replacement) and edit.parts[:1] == ("else",)
