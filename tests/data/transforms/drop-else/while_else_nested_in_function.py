# flags: --require "while"
def f(n):
	while n:
		n -= 1
		if n == 3:
			return n
		else:
			continue
	else:
		return None
# output
def f(n):
	while n:
		n -= 1
		if n == 3:
			return n
