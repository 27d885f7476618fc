# flags: --require "needle"
def f(a, b: needle):
    pass
# output
needle
