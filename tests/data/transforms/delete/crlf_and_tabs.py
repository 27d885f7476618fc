# flags: --require "	keep"
class A:
	def f(self):
		x = 1
		keep = 2
		return x


y = A()
# output
class A:
	def f():
		keep = 2
