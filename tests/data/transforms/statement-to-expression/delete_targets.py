# flags: --require "needle"
del first, needle
# output
needle
