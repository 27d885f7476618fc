# flags: --require "def f"
def f():
    x = 1
# output
def f():
    pass
