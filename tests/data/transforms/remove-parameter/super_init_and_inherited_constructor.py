# flags: --require "self.name = name" --require "print(Leaf(" --require "Middle(" --require "Other()" --require "Unrelated("
class Base:
    def __init__(self, name, flag, extra=None):
        self.name = name


class Middle(Base):
    pass


class Leaf(Middle):
    def __init__(self, name, unused):
        super().__init__(name, flag=True, extra=3)


class Other(Base):
    def __init__(self):
        Base.__init__(self, "other", False)


class Unrelated(Exception):
    def __init__(self, message):
        super().__init__(message)


print(Leaf("x", 0).name, Middle("y", 1).name, Other().name, Unrelated("z"))
# output
class Base:
    def __init__(self, name):
        self.name = name


class Middle(Base):
    pass


class Leaf(Middle):
    def __init__(self, name):
        super().__init__(name)


class Other(Base):
    def __init__(self):
        Base.__init__(self, "other")


class Unrelated(Exception):
    def __init__(self, message):
        super().__init__(message)


print(Leaf("x").name, Middle("y").name, Other().name, Unrelated("z"))
