# flags: --require "needle"
x = items[needle]
# output
x = needle
