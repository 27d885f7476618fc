# flags: --require "if"
if True:
	x = 1
	y = [
		2,
	]
# output
if True:
	pass
	pass
