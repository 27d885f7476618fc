# flags: --require "keep"
def f():
	if x:
		if y:
			keep = 1
			return keep
# output
def f():
	keep = 1
	return keep
