# flags: --require "*, d" --require "return d"
def f(a, b, /, c, *, d, e=1, **kw):
    return d
# output
def f(*, d):
    return d
