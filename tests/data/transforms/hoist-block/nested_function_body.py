# flags: --require "return 1"
def outer():
    def inner():
        return 1
    return inner
# output
def outer():
    return 1
    return inner
