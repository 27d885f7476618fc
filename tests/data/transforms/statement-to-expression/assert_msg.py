# flags: --require "needle"
assert x, needle
# output
needle
