# flags: --require "self.x = x" --require "Point("
class Point:
    def __init__(self, x, y, label="p"):
        self.x = x


origin = Point(0, 0)
named = Point(1, y=2, label="q")
# output
class Point:
    def __init__(self, x):
        self.x = x


origin = Point(0)
named = Point(1)
