# flags: --require "print(b)"
a, b = 1, 2
print(b)
# output
b = 2
print(b)
