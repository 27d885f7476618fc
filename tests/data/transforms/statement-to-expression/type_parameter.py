# flags: --require "needle" --python 3.12
class C[T, needle]:
    pass
# output
needle
