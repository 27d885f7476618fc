# flags: --require "needle"
x = needle < 1
# output
x = needle
