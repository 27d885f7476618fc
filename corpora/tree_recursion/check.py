# The test, appended to every candidate (only input.py is reduced).
def _guard():
    tree = Node(0, [Node(2), Node(5, [Node(4), Node(6)])])
    if mean_leaf_value(tree) != 4.0:
        raise RuntimeError("mean of a directly built tree is broken")
    built = from_spec((1, [(2, []), (4, [])]))
    if built.value != 1 or len(built.children) != 2:
        raise RuntimeError("from_spec is broken")


try:
    _guard()
except Exception as exc:
    raise RuntimeError(f"guard failed: {exc!r}") from exc

assert mean_leaf_value(from_spec((1, [(2, []), (4, [])]))) == 3.0, "My Test"
