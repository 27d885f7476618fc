# flags: --require "needle"
@property
@needle
def f():
    pass
# output
needle
