# flags: --require "return inner"
def outer(a):
    def inner(b):
        def innermost():
            return b
        return innermost()
    x = inner(a)
    return inner
# output
def outer():
    return inner
