# flags: --require "needle"
if needle:
    pass
else:
    pass
# output
needle
