"""Rooted trees of numbers and the recursive functions that walk them.

Trees are made either directly (``Node(3)`` is a leaf whose ``children`` is
``None``) or from nested specifications (``from_spec((1, [(2, []), (3, [])]))``,
where a leaf has an empty list of children).  The bug: the recursion in
``_leaf_sum_and_count`` recognises a leaf only by ``children is None``, so the
leaves of a tree made from a specification count as empty inner nodes, and the
mean of a tree with no leaves divides by zero.
"""

import functools
import itertools
import json
from collections import deque

INDENT = "  "
MAX_DEPTH = 64
_ids = itertools.count()


class Node:
    """A tree node holding a number and a list of children (``None`` for a leaf)."""

    __slots__ = ("value", "children", "ident")

    def __init__(self, value, children=None):
        self.value = value
        self.children = children
        self.ident = next(_ids)

    def __repr__(self):
        if self.children is None:
            return f"Node({self.value!r})"
        return f"Node({self.value!r}, {self.children!r})"

    def is_leaf(self):
        return not self.children


def from_spec(spec):
    """Build a tree from ``(value, [child spec, ...])``."""
    value, kids = spec
    return Node(value, [from_spec(kid) for kid in kids])


def to_spec(node):
    return (node.value, [to_spec(child) for child in node.children or ()])


def depth(node):
    """The number of nodes on the longest path from ``node`` down to a leaf."""
    if not node.children:
        return 1
    return 1 + max(depth(child) for child in node.children)


def size(node):
    return 1 + sum(size(child) for child in node.children or ())


def leaves(node):
    """Yield the leaves from left to right."""
    if not node.children:
        yield node
        return
    for child in node.children:
        yield from leaves(child)


def _leaf_sum_and_count(node):
    if node.children is None:
        return node.value, 1
    total, count = 0, 0
    for child in node.children:
        child_total, child_count = _leaf_sum_and_count(child)
        total += child_total
        count += child_count
    return total, count


def mean_leaf_value(node):
    """The mean of the values stored in the leaves under ``node``."""
    total, count = _leaf_sum_and_count(node)
    return total / count


def paths(node, prefix=()):
    """Yield every root-to-leaf path as a tuple of values."""
    here = prefix + (node.value,)
    if not node.children:
        yield here
        return
    for child in node.children:
        yield from paths(child, here)


def mirror(node):
    if node.children is None:
        return Node(node.value)
    return Node(node.value, [mirror(child) for child in reversed(node.children)])


def prune(node, keep):
    """A copy without the subtrees whose root fails ``keep``."""
    if node.children is None:
        return Node(node.value)
    kept = [prune(child, keep) for child in node.children if keep(child.value)]
    return Node(node.value, kept)


def breadth_first(node):
    queue = deque([node])
    while queue:
        current = queue.popleft()
        yield current.value
        queue.extend(current.children or ())


def render(node, level=0):
    """An indented outline of the tree, one value per line."""
    lines = [f"{INDENT * level}{node.value}"]
    for child in node.children or ():
        lines.append(render(child, level + 1))
    return "\n".join(lines)


def to_json(node):
    return json.dumps(to_spec(node))


def fold(node, combine, leaf=lambda value: value):
    """Generic bottom-up fold: ``combine(value, [folded children])``."""
    if not node.children:
        return leaf(node.value)
    return combine(node.value, [fold(child, combine, leaf) for child in node.children])


@functools.lru_cache(maxsize=None)
def complete_tree_size(branching, levels):
    if levels <= 1:
        return 1
    return 1 + branching * complete_tree_size(branching, levels - 1)


def complete_tree(branching, levels, value=0):
    if levels > MAX_DEPTH:
        raise ValueError("tree too deep")
    if levels <= 1:
        return Node(value)
    return Node(value, [complete_tree(branching, levels - 1, value + 1) for _ in range(branching)])


class TreeStats:
    """Unrelated summary object computed in one pass."""

    def __init__(self, root):
        self.nodes = 0
        self.leaves = 0
        self.maximum = None
        self._visit(root)

    def _visit(self, node):
        self.nodes += 1
        if self.maximum is None or node.value > self.maximum:
            self.maximum = node.value
        if not node.children:
            self.leaves += 1
        for child in node.children or ():
            self._visit(child)

    def as_dict(self):
        return {"nodes": self.nodes, "leaves": self.leaves, "maximum": self.maximum}
