# flags: --require "needle"
class C(*needle):
    pass
# output
needle
