# flags: --require "needle"
match x:
    case needle.value:
        pass
# output
needle.value
