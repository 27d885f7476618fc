# flags: --require "needle"
x = items[needle:2]
# output
x = needle
