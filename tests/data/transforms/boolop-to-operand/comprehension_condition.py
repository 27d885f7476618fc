# flags: --require "not z"
values = [x for x in y if x and not z]
# output
values = [x for x in y if not z]
