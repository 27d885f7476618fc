# flags: --require "needle"
try:
    pass
except (needle, OSError) as error:
    pass
# output
(needle, OSError)
