# flags: --require "if"
if x == 1:
    y = 2
# output
if False:
    y = 2
