# flags: --require "needle"
x = f"value: {needle!r}"
# output
x = needle
