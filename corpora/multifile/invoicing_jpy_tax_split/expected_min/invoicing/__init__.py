from dataclasses import dataclass
from decimal import Decimal


def quantum(currency):
    return Decimal(1).scaleb(-{"EUR": 2, "JPY": 0}[currency])


@dataclass
class Money:
    amount: Decimal
    currency: str

    def __add__(self, other):
        return Money(self.amount + other.amount, self.currency)

    def rounded(self):
        return Money(self.amount.quantize(quantum(self.currency)), self.currency)

    def allocate(self, weights):
        shares = [(self.amount * w / sum(weights)).quantize(quantum(self.currency)) for w in weights]
        left = self.amount - sum(shares)
        index = 0
        while left:
            shares[index % len(shares)] += Decimal("0.01")
            left -= Decimal("0.01")
            index += 1
        return [Money(share, self.currency) for share in shares]

    def __str__(self):
        return f"{self.amount.quantize(quantum(self.currency))} {self.currency}"


def total(amounts):
    return sum(amounts[1:], amounts[0])


class InvoiceError(Exception):
    pass


@dataclass
class InvoiceLine:
    net: Money


class Invoice:
    def __init__(self, number, currency, region):
        self.number = number
        self.currency = currency
        self.rate = {"DE": 19, "JP": 10}[region]
        self.lines = []

    def add_line(self, description, quantity, unit_price):
        self.lines.append(InvoiceLine(Money(Decimal(unit_price), self.currency)))

    def finalize(self):
        net = total([line.net for line in self.lines])
        self.tax = Money(net.amount * self.rate / 100, self.currency).rounded()
        self.gross = net + self.tax
        for line, share in zip(self.lines, self.tax.allocate([line.net.amount for line in self.lines])):
            line.tax = share.rounded()
        charged = total([line.tax for line in self.lines])
        if charged != self.tax:
            raise InvoiceError(f"{self.number}: line taxes add up to {charged}, not {self.tax}")
