# flags: --require "needle"
assert needle, 'message'
# output
needle
