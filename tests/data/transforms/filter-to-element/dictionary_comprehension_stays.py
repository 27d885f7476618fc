# flags: --require "if"
table = {k: k * 2 for k in range(3) if k}
# output
table = {k: k * 2 for k in range(3) if k}
