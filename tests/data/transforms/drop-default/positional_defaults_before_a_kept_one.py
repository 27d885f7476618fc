# flags: --require "c=3"
def f(a=1, b=2, c=3, d=4):
    pass
# output
def f(a, b, c=3, d=4):
    pass
