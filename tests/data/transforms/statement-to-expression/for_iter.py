# flags: --require "needle"
for item in needle:
    pass
# output
needle
