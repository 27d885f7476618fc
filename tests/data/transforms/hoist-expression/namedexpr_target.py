# flags: --require "needle"
x = (needle := f())
# output
x = needle
