# flags: --require "needle"
needle ^= x
# output
needle
