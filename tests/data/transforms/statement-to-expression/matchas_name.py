# flags: --require "needle"
match x:
    case [1, needle]:
        pass
# output
[1, needle]
