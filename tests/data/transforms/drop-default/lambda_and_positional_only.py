# flags: --require "lambda"
g = lambda x=1, y=2: x
def h(p=0, /, q=1, *, r=2):
    pass
# output
g = lambda x, y: x
def h(p, /, q, *, r):
    pass
