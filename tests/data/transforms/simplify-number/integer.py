# flags: --require "x = "
x = 12345
# output
x = 0
