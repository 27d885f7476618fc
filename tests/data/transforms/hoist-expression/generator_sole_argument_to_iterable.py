# flags: --require "sum(" --require "items"
total = sum(x * 2 for x in items if x)
# output
total = sum(items)
