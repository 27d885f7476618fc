# flags: --require "needle"
x = lambda v=needle: v
# output
x = needle
