# flags: --require "needle"
x = -needle
# output
x = needle
