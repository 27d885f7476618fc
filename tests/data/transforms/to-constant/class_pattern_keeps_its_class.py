# flags: --require "case"
match value:
    case Point(x=0):
        pass
# output
match 0:
    case Point(x=0):
        pass
