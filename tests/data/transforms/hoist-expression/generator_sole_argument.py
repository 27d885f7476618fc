# flags: --require "total = " --require "for"
total = sum(x * 2 for x in items)
# output
total = (x for x in items)
