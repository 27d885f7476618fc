# flags: --require "+"
x = (a +
     b)
# output
x = (a +
     b)
