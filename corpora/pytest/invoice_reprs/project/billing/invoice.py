"""Invoices: lines of goods, a tax rate, an early-payment discount, and what the customer owes."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal

from billing.money import Money, total


@dataclass(frozen=True)
class Line:
    """So many units of one article at one price."""

    article: str
    quantity: int
    price: Money

    @property
    def amount(self) -> Money:
        return self.price.times(self.quantity)


@dataclass
class Invoice:
    """An invoice to one customer, in one currency."""

    number: str
    customer: str
    currency: str
    issued: date
    tax_rate: Decimal = Decimal("20")
    discount: Decimal = Decimal("0")
    """Per cent off when paid within :attr:`early_days`."""
    early_days: int = 10
    lines: list[Line] = field(default_factory=list)

    def add(self, article: str, quantity: int, price: Money) -> None:
        if price.currency != self.currency:
            raise ValueError(f"{article}: priced in {price.currency}, the invoice is in {self.currency}")
        if quantity <= 0:
            raise ValueError(f"{article}: quantity must be positive, not {quantity}")
        self.lines.append(Line(article, quantity, price))

    @property
    def net(self) -> Money:
        return total([line.amount for line in self.lines], self.currency)

    @property
    def tax(self) -> Money:
        return self.net.times(self.tax_rate).times(Decimal("0.01"))

    @property
    def gross(self) -> Money:
        return self.net + self.tax

    @property
    def early_until(self) -> date:
        return self.issued + timedelta(days=self.early_days)

    def due_on(self, paid: date) -> Money:
        """What the customer owes when paying on ``paid``: the gross, less the discount when paid early."""
        if paid <= self.early_until and self.discount:
            return self.due
        return self.gross

    @property
    def due(self) -> Money:
        """The gross less the early-payment discount."""
        discounted = self.gross.discount(self.discount)
        return discounted.discount(self.discount)

    def summary(self) -> str:
        rows = [f"{line.quantity} x {line.article} at {line.price}" for line in self.lines]
        return "\n".join([f"Invoice {self.number} for {self.customer}", *rows, f"gross {self.gross}", f"due {self.due}"])
