# flags: --require "s ="
s = "hello world"
# output
s = ''
