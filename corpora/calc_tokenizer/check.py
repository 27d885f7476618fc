# The test, appended to every candidate (only input.py is reduced).
def _guard():
    if evaluate("2 * (3 + 4)") != 14:
        raise RuntimeError("arithmetic is broken")
    if evaluate("-(x - 1) * (x + 1)", {"x": 5}) != -24:
        raise RuntimeError("variables or negation are broken")


try:
    _guard()
except Exception as exc:
    raise RuntimeError(f"guard failed: {exc!r}") from exc

assert evaluate("12 + 30") == 42, "My Test"
