# flags: --require "sum("
total = sum(x for x in items)
# output
total = sum(0)
