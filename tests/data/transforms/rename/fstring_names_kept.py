# flags: --require "print("
value = 1
other = 2
print(f"{value}", other)
# output
value = 1
a = 2
print(f"{value}", a)
