# flags: --require "needle"
x = a if b else needle
# output
x = needle
