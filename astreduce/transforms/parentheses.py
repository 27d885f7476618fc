"""Redundant parentheses: ``((a + b))`` → ``a + b`` once nothing needs them."""

from __future__ import annotations

import io
import tokenize
from collections.abc import Iterator

from astreduce.source.render import Edit, Replacement, Slice
from astreduce.transforms import Transform
from astreduce.transforms.expressions import EXPRESSIONS, has_bare_line_break, stands_bare
from astreduce.source.tree import Node, Tree

#: Parentheses that belong to the syntax of these nodes, not to grouping.
_OWN_PARENTHESES = frozenset({"Tuple", "GeneratorExp"})
#: Where a tuple may stand without its own parentheses: (statement, field).
_BARE_TUPLE_PLACES = frozenset({
    ("Return", "value"), ("Expr", "value"), ("Assign", "value"), ("Assign", "targets"), ("AugAssign", "value"),
    ("For", "target"), ("For", "iter"), ("AsyncFor", "target"), ("AsyncFor", "iter"),
})
_LONGEST = 4000


def encloses(text: str) -> bool:
    """True when ``text`` is ``( ... )`` with the first parenthesis closed by the last one."""
    if not (text.startswith("(") and text.endswith(")")) or len(text) > _LONGEST:
        return False
    depth = 0
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return False
    significant = [t for t in tokens if t.type == tokenize.OP]
    for position, token in enumerate(significant):
        if token.string in "([{":
            depth += 1
        elif token.string in ")]}":
            depth -= 1
            if depth == 0 and position != len(significant) - 1:
                return False
    return depth == 0


class DropParentheses(Transform):
    """Remove a pair of parentheses around an expression.

    Applies to: expressions whose source is wrapped in a matching pair of
    parentheses that is not their own syntax (tuples and generator expressions
    keep theirs) and that nothing needs: not around what binds more loosely
    than its place (``(a or b) and c``), nor around lines they hold together;
    the parenthesised items of a one-line ``with (a, b):``.
    Yields: the expression without that pair (with its inside rendered as
    reduced); ``with a, b:``.
    """

    name = "drop-parentheses"
    node_kinds = EXPRESSIONS | {"With", "AsyncWith"}

    def replacements(self, node: Node, tree: Tree) -> Iterator[Edit | str]:
        if node.kind in ("With", "AsyncWith"):
            yield from _with_items(node, tree)
            return
        text = tree.source(node.id)
        if not encloses(text):
            return
        if node.kind in _OWN_PARENTHESES and not encloses(text[1:-1].strip()):
            if _tuple_stands_bare(tree, node):  # ``return (a, b)`` (as ``ast.unparse`` writes it) → ``return a, b``
                yield Replacement((Slice(node.start + 1, node.end - 1),))
            return  # else the only pair is the tuple's or generator's own
        if not stands_bare(tree, node.id):
            return  # the parentheses group what binds more loosely than its place, or hold lines together
        yield Replacement((Slice(node.start + 1, node.end - 1),))


def _tuple_stands_bare(tree: Tree, node: Node) -> bool:
    """Whether a tuple's own parentheses may go: a non-empty tuple, without starred items (bare only since 3.8),
    held on one line, standing where a statement takes a bare tuple."""
    parent = tree.nodes[node.parent]
    items = tree.fields[node.id].get("elts", ())
    return (
        node.kind == "Tuple"
        and (parent.kind, node.field) in _BARE_TUPLE_PLACES
        and bool(items)
        and not any(tree.nodes[i].kind == "Starred" for i in items)
        and not has_bare_line_break(tree.source(node.id)[1:-1])
    )


def _with_items(node: Node, tree: Tree) -> Iterator[Edit]:
    """``with (a, b):`` → ``with a, b:`` when the parentheses hold every item on one line."""
    items = tree.fields[node.id].get("items", ())
    if not items:
        return
    text = tree.text
    first, last = tree.nodes[items[0]].start, tree.nodes[items[-1]].end
    open_paren = text.rfind("(", node.start, first)
    if open_paren < 0 or text[open_paren + 1 : first].strip() or not text[node.start : open_paren].rstrip().endswith("with"):
        return
    close_paren = last
    while close_paren < len(text) and text[close_paren] in " \t,":
        close_paren += 1
    if close_paren >= len(text) or text[close_paren] != ")" or "\n" in text[open_paren:close_paren]:
        return
    if not text[close_paren + 1 :].lstrip(" \t").startswith(":"):
        return
    yield Replacement((Slice(node.start, open_paren), Slice(open_paren + 1, close_paren), Slice(close_paren + 1, node.end)))
