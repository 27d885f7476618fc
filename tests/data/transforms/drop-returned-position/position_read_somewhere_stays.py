# flags: --require "return a + b"
def pair():
    return 1, 2


def use():
    a, b = pair()
    return a + b
# output
def pair():
    return 1, 2


def use():
    a, b = pair()
    return a + b
