# flags: --require "print("
print(x for x in y)
# output
print()
