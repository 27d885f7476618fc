# flags: --require "return a" --require "h(*"
def h(a, b):
    return a


values = (1, 2)
h(*values)
h(1, 2)
# output
def h(a, b):
    return a


values = (1, 2)
h(*values)
h(1, 2)
