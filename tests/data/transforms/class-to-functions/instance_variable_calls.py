# flags: --require "return a + b" --require "print("
class Calculator:
    def add(self, a, b):
        return a + b


calc = Calculator()
print(calc.add(1, 2))
# output
def add(a, b):
    return a + b


print(add(1, 2))
