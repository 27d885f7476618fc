# flags: --require "return a" --require "callback = h"
def h(a, b):
    return a


callback = h
h(1, 2)
# output
def h(a, b):
    return a


callback = h
h(1, 2)
