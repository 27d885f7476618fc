# flags: --require "(b)"
x = (f)(b)
# output
x = f(b)
