# flags: --require "needle"
raise Error from needle
# output
needle
