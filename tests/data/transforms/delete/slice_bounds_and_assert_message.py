# flags: --require "[1:" --require "assert" --require "raise"
assert items[1:5:2], "message"
raise Error() from cause
# output
assert items[1::]
raise Error()
