# flags: --require "print(b)"
def f():
    a, *b = 1, 2, 3
    print(b)
# output
def f():
    a, *b = 1, 2, 3
    print(b)
