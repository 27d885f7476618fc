# flags: --require "needle" --python 3.13
class C[**P = needle]:
    pass
# output
needle
