# flags: --require "print("
value = 1
other = 2
print(f"{value}", other)
# output
a = 1
b = 2
print(f"{a}", b)
