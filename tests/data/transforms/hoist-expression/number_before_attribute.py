# flags: --require "1" --require ".bit_length()"
n = int(1).bit_length()
# output
n = (1).bit_length()
