# flags: --require "needle"
x = f(1, needle)
# output
x = needle
