# flags: --require "b[0] ="
a, b[0] = f()
for i, (j, k) in pairs:
    pass
# output
a, b[0] = 0
for i, (j, k) in '':
    pass
