# flags: --require "needle"
x = lambda v: needle
# output
x = needle
