# flags: --require "needle"
match x:
    case needle(0):
        pass
# output
needle
