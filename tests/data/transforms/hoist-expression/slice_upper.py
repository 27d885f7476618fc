# flags: --require "needle"
x = items[1:needle]
# output
x = needle
