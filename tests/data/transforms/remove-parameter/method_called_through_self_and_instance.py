# flags: --require "return q" --require "self.m(" --require "K.m(k"
class K:
    def m(self, p, q):
        return q

    def run(self):
        return self.m(1, 2)


k = K()
print(k.m(3, 4), K.m(k, 5, 6), k.run())
# output
class K:
    def m(self, q):
        return q

    def run(self):
        return self.m(2)


k = K()
print(k.m(4), K.m(k, 6), k.run())
