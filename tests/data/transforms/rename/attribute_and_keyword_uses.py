# flags: --require "print("
class Widget:
    def __init__(self, count):
        self.count = count


w = Widget(count=3)
print(w.count)
# output
class a:
    def __init__(b, c):
        b.c = c


w = a(c=3)
print(w.c)
