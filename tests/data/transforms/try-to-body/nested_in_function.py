# flags: --require "first" --require "last"
def run():
    try:
        first = 1
    finally:
        last = 2
    return first, last
# output
def run():
    first = 1
    last = 2
    return first, last
