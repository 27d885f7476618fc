# flags: --require "return c"
def count_leaves(node):
    if not node:
        return 0, 1
    s, c = 0, 0
    for child in node:
        t, n = count_leaves(child)
        c += n
    return s, c


def mean(node):
    total, c = count_leaves(node)
    return c
# output
def count_leaves(node):
    if not node:
        return 1
    s, c = 0, 0
    for child in node:
        n = count_leaves(child)
        c += n
    return c


def mean(node):
    c = count_leaves(node)
    return c
