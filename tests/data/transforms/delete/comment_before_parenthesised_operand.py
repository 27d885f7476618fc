# flags: --require "b and c"
x = (a or  # note
     (b and c))
# output
x = ((b and c))
