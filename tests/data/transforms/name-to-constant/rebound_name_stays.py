# flags: --require "print("
LIMIT = 3
LIMIT = 4
print(LIMIT)
# output
LIMIT = 3
LIMIT = 4
print(LIMIT)
