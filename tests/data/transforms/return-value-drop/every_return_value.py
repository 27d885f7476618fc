# flags: --require "def sign" --require "return"
def sign(x):
    if x > 0:
        return 1
    if x < 0:
        return -1
    return 0
# output
def sign(x):
    if x > 0:
        return
    if x < 0:
        return
    return
