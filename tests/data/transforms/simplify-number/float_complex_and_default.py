# flags: --require "def f(a="
def f(a=2.5e3, b=-7):
    return a + 2j
# output
def f(a=0, b=-0):
    return a + 0
