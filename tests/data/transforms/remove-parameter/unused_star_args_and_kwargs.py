# flags: --require "return x" --require "g(1"
def g(x, *args, **kwargs):
    return x


g(1, 2, 3, key=4)
g(1, key=5)
# output
def g(x):
    return x


g(1)
g(1)
