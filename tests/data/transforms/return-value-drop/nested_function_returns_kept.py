# flags: --require "def outer" --require "return 5"
def outer(flag):
    def inner():
        return 5

    if flag:
        return inner()
    return None
# output
def outer(flag):
    def inner():
        return 5

    if flag:
        return
    return
