# flags: --require "needle"
first = needle = 0
# output
needle
