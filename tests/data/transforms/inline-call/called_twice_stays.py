# flags: --require "print("
def double(x):
    return x * 2


print(double(1), double(2))
# output
def double(x):
    return x * 2


print(double(1), double(2))
