# flags: --require "with"
with open(p) as f:
    f.read()
# output
with open():
    pass
