# flags: --require "x = 1"
@decorate
class A(B, metaclass=M):
    """Doc."""
    x = 1  # kept

    def m(self):
        return self.x
# output
"""Doc."""
x = 1  # kept

def m(self):
    return self.x
