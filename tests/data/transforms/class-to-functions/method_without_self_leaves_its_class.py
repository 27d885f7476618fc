# flags: --require "self.n" --require "x + 1"
class Tool:
    def __init__(self):
        self.n = 1

    def helper(self, x):
        return x + 1

    def run(self):
        return self.helper(self.n)


t = Tool()
print(t.run(), Tool.helper(t, 5))
# output
class Tool:
    def __init__(self):
        self.n = 1

    def run(self):
        return helper(self.n)


def helper(x):
        return x + 1


t = Tool()
print(t.run(), helper(5))
