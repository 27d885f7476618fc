# flags: --require "return total"
def count(items):
    total = len(items)
    total = total + 1
    return total
# output
def count(items):
    total = len(items)
    total = total + 1
    return total
