# flags: --require "and c"
x = (a or b) and c
# output
x = (a or b) and c
