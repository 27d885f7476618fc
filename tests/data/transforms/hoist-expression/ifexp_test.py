# flags: --require "needle"
x = a if needle else b
# output
x = needle
