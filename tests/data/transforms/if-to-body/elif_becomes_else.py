# flags: --require "if a" --require "x = 1" --require "y = 2"
if a:
    x = 1
elif b:
    y = 2
# output
if a:
    x = 1
else:
    y = 2
