# flags: --require "return a + b"
class Calculator:
    """Stateless."""

    def add(self, a, b):
        return a + b

    @staticmethod
    def twice(x):
        return x * 2


print(Calculator().add(1, 2), Calculator.twice(3))
# output
def add(a, b):
    return a + b

def twice(x):
    return x * 2


print(add(1, 2), twice(3))
