# flags: --require "needle"
x = [v for needle in items]
# output
x = needle
