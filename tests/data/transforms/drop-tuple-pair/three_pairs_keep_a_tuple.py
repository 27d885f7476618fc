# flags: --require "x, " --require "z ="
def f():
    x, y, z = 1, 2, 3
    return x + z
# output
def f():
    x, z = 1, 3
    return x + z
