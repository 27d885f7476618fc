# flags: --require "for x in y if"
values = [x for x in y if x > 0 if x in z]
# output
values = [x for x in y if False if False]
