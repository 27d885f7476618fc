# flags: --require "self.size = size" --require "self.name = name" --require ".describe()" --require "Leaf("
class Base:
    def __init__(self, name):
        self.name = name
        self.size = 0

    def describe(self):
        return self.name


class Leaf(Base):
    def __init__(self, name, size):
        super().__init__(name)
        self.size = size


print(Leaf("x", 2).describe())
# output
class Leaf:
    def describe(self):
        return self.name
    def __init__(self, name, size):
        self.name = name
        self.size = 0
        self.size = size


print(Leaf("x", 2).describe())
