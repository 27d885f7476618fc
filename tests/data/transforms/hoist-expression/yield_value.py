# flags: --require "needle"
def f():
    x = yield needle
# output
def f():
    x = needle
