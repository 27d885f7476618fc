# flags: --require "needle"
x = [v for v in needle]
# output
x = needle
