# flags: --strategy hdd --require "print(b"
a = 1
b = 2
for i in range(3):
    if a:
        print(b, a)
        print(a)
# output
for i in range():
    if a:
        print(b)
