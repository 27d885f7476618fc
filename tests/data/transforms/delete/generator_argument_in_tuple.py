# flags: --require "f(a for a in [b" --require "d)"
x = (f(a for a in [b, e]), d)
# output
x = (f(a for a in [b]), d)
