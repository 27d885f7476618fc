# flags: --require "b,"
f(a or b, key=c and d)
# output
f(b, key=True)
