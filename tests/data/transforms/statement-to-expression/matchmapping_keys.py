# flags: --require "needle"
match x:
    case {needle.key: 1}:
        pass
# output
needle.key
