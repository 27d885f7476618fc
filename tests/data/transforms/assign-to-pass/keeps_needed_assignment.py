# flags: --require "x = 1"
x = 1
y = x + 1
x, y = y, x
# output
x = 1
pass
pass
