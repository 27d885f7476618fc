# flags: --require "def f"
def f(a: int, /, b: "str" = "", *args: tuple, c: list[int] = None, **kw: dict) -> bool:
    return True
# output
def f(a, /, b = "", *args, c = None, **kw):
    return True
