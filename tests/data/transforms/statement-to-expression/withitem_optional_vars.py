# flags: --require "needle"
with open(path) as needle:
    pass
# output
needle
