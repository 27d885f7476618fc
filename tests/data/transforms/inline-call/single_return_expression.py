# flags: --require "print("
def double(x, y=1):
    return x * 2 + y


print(double(3 + 4))
# output
print((3 + 4) * 2 + 1)
