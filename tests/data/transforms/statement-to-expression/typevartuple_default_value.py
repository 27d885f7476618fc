# flags: --require "needle" --python 3.13
class C[*Ts = needle]:
    pass
# output
needle
