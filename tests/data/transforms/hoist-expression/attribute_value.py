# flags: --require "needle"
x = needle.attribute
# output
x = needle
