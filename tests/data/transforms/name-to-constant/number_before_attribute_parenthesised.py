# flags: --require "bit_length"
SIZE = 8
print(SIZE.bit_length())
# output
print((8).bit_length())
