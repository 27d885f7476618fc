# flags: --require "needle"
x = {k: needle for k in items}
# output
x = needle
