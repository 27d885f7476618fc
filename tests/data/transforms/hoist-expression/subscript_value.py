# flags: --require "needle"
x = needle[0]
# output
x = needle
