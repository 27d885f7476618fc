# flags: --require "needle"
raise needle from error
# output
needle
