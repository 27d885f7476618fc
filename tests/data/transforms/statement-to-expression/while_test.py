# flags: --require "needle"
while needle:
    pass
# output
needle
