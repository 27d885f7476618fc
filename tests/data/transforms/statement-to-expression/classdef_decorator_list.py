# flags: --require "needle"
@needle
class C:
    pass
# output
needle
