# flags: --require "needle"
x = {needle: v for v in items}
# output
x = needle
