# flags: --require "return"
def total(items):
    count: int = 0
    label: str
    for item in items:
        count += item
    return count
# output
def total(items):
    pass
    pass
    for item in items:
        pass
    return count
