# flags: --require ".bit_length()" --require "*"
y = (255).bit_length() * 3.5
z = 1.5.hex()
# output
y = (255).bit_length() * 0
z = 1.5.hex()
