# flags: --require "needle"
with needle as resource:
    pass
# output
needle
