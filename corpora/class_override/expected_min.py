class LineItem:
    def __init__(self, name, quantity, unit_price):
        self.quantity = quantity
        self.unit_price = unit_price

    @property
    def amount(self):
        return self.quantity * self.unit_price


class Invoice:
    def __init__(self, items, discount=0):
        self.items = items
        self.discount = discount

    def subtotal(self):
        return sum(item.amount for item in self.items)

    def discount_amount(self):
        return self.subtotal() * self.discount // 100

    def total(self):
        return self.subtotal() - self.discount_amount()


class TaxedInvoice(Invoice):
    def __init__(self, items, discount=0, rate=0):
        super().__init__(items, discount)
        self.rate = rate

    def total(self):
        net = super().subtotal()
        return net + net * self.rate // 100
