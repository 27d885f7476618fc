# flags: --require "needle"
for needle in items:
    pass
# output
needle
