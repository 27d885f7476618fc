# flags: --require "print" --require "*a"
print((1, 2))
x = (*a, 2)
y = (1,
     2)
# output
print((1, 2))
x = (*a, 2)
y = (1,
     2)
