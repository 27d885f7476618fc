# flags: --require "needle"
class C(Base, metaclass=needle):
    pass
# output
needle
