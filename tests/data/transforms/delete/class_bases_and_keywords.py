# flags: --require "metaclass"
class A(B, C, metaclass=M, flag=True):
    x = 1

    def method(self):
        return self.x
# output
class A(metaclass=M):
    pass
