# flags: --require "needle" --python 3.12
def f[T: needle](x: T):
    pass
# output
needle
