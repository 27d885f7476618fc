# flags: --require "needle"
def f(*, key=needle):
    pass
# output
needle
