# flags: --require "total = "
class Cart:
    def prices(self):
        values = [1, 2]
        return values

    def total(self):
        total = self.prices()
        return sum(total)
# output
class Cart:
    def total(self):
        values = [1, 2]
        total = values
        return sum(total)
