# flags: --require "needle"
x = needle(1, 2)
# output
x = needle
