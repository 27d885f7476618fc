# flags: --require "needle"
class C(Base, needle):
    pass
# output
needle
