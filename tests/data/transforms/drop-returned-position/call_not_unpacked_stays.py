# flags: --require "return b" --require "print(pair())"
def pair():
    return 1, 2


def use():
    a, b = pair()
    return b


print(pair())
# output
def pair():
    return 1, 2


def use():
    a, b = pair()
    return b


print(pair())
