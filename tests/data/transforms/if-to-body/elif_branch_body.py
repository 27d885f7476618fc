# flags: --require "y = 2"
def f():
    if a:
        x = 1
    elif b:
        y = 2
    elif c:
        z = 3
# output
def f():
    y = 2
