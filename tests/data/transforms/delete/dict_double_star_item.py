# flags: --require "**extra"
d = {**base, "k": 1, **extra}
# output
d = {**extra}
