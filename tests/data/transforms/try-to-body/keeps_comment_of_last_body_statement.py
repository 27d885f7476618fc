# flags: --require "x = 1"
try:
    x = 1  # set it
except OSError:
    pass
else:
    y = 2
# output
x = 1  # set it
y = 2
