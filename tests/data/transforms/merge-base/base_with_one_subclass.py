# flags: --require "def describe" --require "def area"
class Shape:
    """A base."""

    sides = 0

    def area(self):
        return 0

    def describe(self):
        return "shape"


class Square(Shape):
    def area(self):
        return 4


print(Square().describe(), Square().area())
# output
class Square:
    sides = 0

    def describe(self):
        return "shape"
    def area(self):
        return 4


print(Square().describe(), Square().area())
