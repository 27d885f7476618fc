# flags: --require "return"
class Counter:
    def add(self, a):
        return self.start + a


print(Counter().add(1))
# output
class Counter:
    def add(self, a):
        return self.start + a


print(Counter().add(1))
