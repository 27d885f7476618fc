# flags: --require "print"
print(((1 + 2)))
# output
print(1 + 2)
