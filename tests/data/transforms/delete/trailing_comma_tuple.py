# flags: --require "b,)"
x = (a, b,)
# output
x = (b,)
