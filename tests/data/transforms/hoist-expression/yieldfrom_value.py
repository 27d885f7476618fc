# flags: --require "needle"
def f():
    x = yield from needle
# output
def f():
    x = needle
