# flags: --require "if not"
values = [x for x in y if x if not x if x > 1]
# output
values = [x for x in y if not x]
