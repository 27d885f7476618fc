# flags: --require "x"
x: int = 5
y: list[str]
class C:
    z: "C" = None  # comment
# output
x = 5
y: list[str]
class C:
    z = None  # comment
