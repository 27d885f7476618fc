# flags: --require "print("
print(compute(a, b))
# output
print(0)
