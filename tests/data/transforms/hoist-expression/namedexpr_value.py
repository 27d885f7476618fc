# flags: --require "needle"
x = (y := needle)
# output
x = needle
