class Node:
    def __init__(self, value, children=None):
        self.value = value
        self.children = children


def from_spec(spec):
    value, kids = spec
    return Node(value, [from_spec(kid) for kid in kids])


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
    total, count = _leaf_sum_and_count(node)
    return total / count
