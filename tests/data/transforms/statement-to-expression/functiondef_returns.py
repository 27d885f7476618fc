# flags: --require "needle"
def f() -> needle:
    pass
# output
needle
