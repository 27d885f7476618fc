# flags: --require "subtotal" --require "class Taxed"
class Invoice:
    def subtotal(self):
        return 10


class Taxed(Invoice):
    def total(self):
        return super().subtotal() * 2


print(Taxed().total())
# output
class Taxed:
    def subtotal(self):
        return 10
    def total(self):
        return self.subtotal() * 2


print(Taxed().total())
