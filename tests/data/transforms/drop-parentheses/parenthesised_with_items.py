# flags: --require "with" --require "yield"
def enter(a, b):
    with (a, b):
        yield
    with (
        a,
        b,
    ):
        yield
# output
def enter(a, b):
    with a, b:
        yield
    with (
        a,
        b,
    ):
        yield
