# flags: --require "(1, 2)"
y = ((1, 2))
# output
y = (1, 2)
