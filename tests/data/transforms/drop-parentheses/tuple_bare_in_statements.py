# flags: --require "a, b" --require "for"
def f(a, b):
    for (k, v) in (a, b):
        pass
    return (a, b)
# output
def f(a, b):
    for k, v in a, b:
        pass
    return a, b
