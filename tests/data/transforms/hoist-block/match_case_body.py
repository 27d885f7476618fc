# flags: --require "found"
match command:
    case ["go", direction]:
        found = direction
    case _:
        pass
# output
found = direction
