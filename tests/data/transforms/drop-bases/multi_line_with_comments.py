# flags: --require "class A"
@dataclass
class A(
    B,  # first base
    C,
):
    x = 1
# output
@dataclass
class A:
    x = 1
