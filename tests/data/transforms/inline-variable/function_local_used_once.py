# flags: --require "return"
def area(width, height):
    product = width * height
    return product + 1
# output
def area(width, height):
    return width * height + 1
