# flags: --require "needle"
match needle:
    case 1:
        pass
# output
needle
