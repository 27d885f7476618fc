# flags: --require "needle"
x = {1: needle}
# output
x = needle
