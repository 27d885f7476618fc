# flags: --require "needle"
x = a and needle
# output
x = needle
