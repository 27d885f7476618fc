# flags: --require "assert" --require "got"
class Fraction:
    pass
result = Fraction()
assert False, f"got {result} from {Fraction!r}"
# output
class a:
    pass
b = a()
assert False, f"got {b} from {a!r}"
