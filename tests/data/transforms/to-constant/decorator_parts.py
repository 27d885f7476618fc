# flags: --require "@"
@register(name)
def f():
    return helper(1)
# output
@0(0)
def f():
    return 0
