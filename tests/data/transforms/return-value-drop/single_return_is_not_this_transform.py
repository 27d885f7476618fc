# flags: --require "return"
def one():
    return 1
# output
def one():
    return 1
