# flags: --require "b"
def f(a, b, /):
    pass
# output
def f(b, /):
    pass
