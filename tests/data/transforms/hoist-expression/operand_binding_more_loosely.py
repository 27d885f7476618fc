# flags: --require "+"
y = z * f(a + b)
# output
y = (a + b)
