# flags: --require "needle" --python 3.13
class C[T = needle]:
    pass
# output
needle
