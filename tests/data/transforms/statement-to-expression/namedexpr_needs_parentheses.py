# flags: --require "needle"
if (needle := f()):
    pass
# output
(needle := f())
