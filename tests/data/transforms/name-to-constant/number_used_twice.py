# flags: --require "def area"
WIDTH = 3


def area(height):
    return WIDTH * height + WIDTH
# output
def area(height):
    return 3 * height + 3
