# flags: --require "needle"
match x:
    case 1 if needle:
        pass
# output
needle
