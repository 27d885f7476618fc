# flags: --require "msg"
msg = f"value: {x!r:>{width}} units"
# output
msg = 'value:  units'
