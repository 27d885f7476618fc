# flags: --require "print("
def function_name(argument):
	result = argument
	return result

print(function_name(1))
# output
def a(b):
	c = b
	return c

print(a(1))
