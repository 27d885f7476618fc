# flags: --require "keep"
class A:
	def f(self):
		try:
			keep = 1
		except:
			pass
# output
keep = 1
