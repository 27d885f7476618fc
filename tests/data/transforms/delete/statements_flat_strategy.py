# flags: --strategy flat --require "print(b"
a = 1
b = 2
if a:
    print(b, a)
    print(a)
# output
if a:
    print(b)
