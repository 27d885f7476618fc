# flags: --require "return count"
def tally(items):
    total, count = 0, 0
    for item in items:
        count += 1
    return count
# output
def tally(items):
    count = 0
    for item in items:
        count += 1
    return count
