# flags: --require "b +"
x = (a or
     b +
     c)
# output
x = (b +
     c)
