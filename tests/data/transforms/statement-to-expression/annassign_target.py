# flags: --require "needle"
needle: int = 0
# output
needle
