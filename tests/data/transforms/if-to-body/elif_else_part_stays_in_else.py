# flags: --require "if a" --require "x = 1" --require "z = 3"
if a:
    x = 1
elif b:  # second
    y = 2
else:  # last
    z = 3
# output
if a:
    x = 1
else:  # last
    z = 3
