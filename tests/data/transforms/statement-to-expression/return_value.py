# flags: --require "needle"
def f():
    return needle
# output
def f():
    needle
