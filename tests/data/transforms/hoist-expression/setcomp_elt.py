# flags: --require "needle"
x = {needle for v in items}
# output
x = needle
