# flags: --require "needle"
x: int = needle
# output
needle
