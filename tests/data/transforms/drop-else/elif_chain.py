# flags: --require "elif b"
if a:
    x = 1
elif b:
    y = 2
elif c:
    z = 3
else:
    w = 4
# output
if a:
    x = 1
elif b:
    y = 2
