# flags: --require "class"
class Base:
    x = 1


class A(Base):
    pass


class B(Base):
    pass
# output
class Base:
    x = 1


class A(Base):
    pass


class B(Base):
    pass
