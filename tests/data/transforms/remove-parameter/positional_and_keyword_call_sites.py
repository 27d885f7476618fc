# flags: --require "return a + c" --require "f(1"
def f(a, b, c=3):
    return a + c


print(f(1, 2), f(1, b=2, c=4), f(1, 2, 5))
# output
def f(a, c=3):
    return a + c


print(f(1), f(1, c=4), f(1, 5))
