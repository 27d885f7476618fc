# flags: --require "try"
try:
    value = int("x")
except ValueError:
    value = 0
# output
try:
    value = int("x")
except ValueError:
    value = 0
