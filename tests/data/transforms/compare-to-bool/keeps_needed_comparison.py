# flags: --require "x > 0" --require "while"
while (x > 0) and (
    y <= 1  # upper bound
):
    x -= 1
# output
while (x > 0) and False:
    x -= 1
