# flags: --require "x % 2" --require "x > 1"
total = sum(x * x for x in range(5) if x % 2 if x > 1)
# output
total = sum((x % 2) for x in range(5) if x > 1)
