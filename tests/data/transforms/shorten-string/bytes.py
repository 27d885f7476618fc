# flags: --require "data"
data = b"abc\x00def"
# output
data = b''
