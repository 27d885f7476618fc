# flags: --require "a.write" --require "b.write"
import io

with io.StringIO() as a, io.StringIO() as b:
    a.write("x")
    b.write("y")
# output
import io

a = io.StringIO()
b = io.StringIO()
a.write("x")
b.write("y")
