# flags: --require "needle"
x = needle if a else b
# output
x = needle
