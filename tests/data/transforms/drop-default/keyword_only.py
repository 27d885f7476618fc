# flags: --require "def f"
def f(a, *, b=1, c=[]):
    return a
# output
def f(a, *, b, c):
    return a
