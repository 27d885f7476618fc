# flags: --require "class Child" --require "Exception"
class Base(Exception):
    code = 1


class Child(Base):
    pass


raise Child()
# output
class Child(Exception):
    code = 1


raise Child()
