# flags: --require "case Color." --require "match command"
match command:
    case Color.RED:
        pass
# output
match command:
    case Color.RED:
        pass
