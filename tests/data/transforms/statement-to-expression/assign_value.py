# flags: --require "needle"
x = needle
# output
needle
