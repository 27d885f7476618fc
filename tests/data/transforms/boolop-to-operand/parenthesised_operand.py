# flags: --require "b"
if (a and b) or c:
    pass
# output
if b:
    pass
