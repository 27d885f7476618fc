# flags: --require "print("
class Box:
    def __init__(self, size):
        self.size = size

    def volume(self, depth):
        return self.size * depth


box = Box(2)
print(box.volume(3))
# output
class Box:
    def __init__(self, size):
        self.size = size


box = Box(2)
print(box.size * 3)
