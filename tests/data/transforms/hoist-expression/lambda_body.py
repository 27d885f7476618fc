# flags: --require "item.name"
key = lambda item: item.name
# output
key = item.name
