# flags: --require "= items"
first, = items
# output
() = items
