# flags: --require "class A"
class A(B, C, metaclass=M, flag=True):
    pass
# output
class A:
    pass
