# flags: --require "items.pop()"
def drain(items):
    last = items.pop()
    return None
# output
def drain(items):
    items.pop()
    return None
