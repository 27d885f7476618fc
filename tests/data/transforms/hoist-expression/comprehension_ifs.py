# flags: --require "needle"
x = [v for v in items if needle]
# output
x = needle
