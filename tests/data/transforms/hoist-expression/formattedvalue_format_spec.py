# flags: --require "needle"
x = f"{a:>{needle}}"
# output
x = needle
