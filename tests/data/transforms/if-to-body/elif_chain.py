# flags: --require "z = 3"
if a:
    x = 1
elif b:
    y = 2
else:
    z = 3
# output
z = 3
