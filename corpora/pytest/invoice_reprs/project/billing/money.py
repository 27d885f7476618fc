"""Amounts of money in one currency, exact to the cent."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

CENT = Decimal("0.01")


class CurrencyMismatch(ValueError):
    """Two amounts in different currencies were combined."""


class Money:
    """An amount in one currency, kept to the cent."""

    __slots__ = ("amount", "currency")

    def __init__(self, amount: str | int | Decimal, currency: str) -> None:
        self.amount = Decimal(amount).quantize(CENT, rounding=ROUND_HALF_EVEN)
        self.currency = currency.upper()

    def _same(self, other: Money) -> None:
        if other.currency != self.currency:
            raise CurrencyMismatch(f"{self.currency} and {other.currency}")

    def __add__(self, other: Money) -> Money:
        self._same(other)
        return Money(self.amount + other.amount, self.currency)

    def __sub__(self, other: Money) -> Money:
        self._same(other)
        return Money(self.amount - other.amount, self.currency)

    def times(self, factor: int | Decimal) -> Money:
        return Money(self.amount * Decimal(factor), self.currency)

    def discount(self, percent: Decimal) -> Money:
        """This amount less ``percent`` per cent of it."""
        return Money(self.amount * (Decimal(100) - percent) / Decimal(100), self.currency)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Money) and (self.amount, self.currency) == (other.amount, other.currency)

    def __hash__(self) -> int:
        return hash((self.amount, self.currency))

    def __lt__(self, other: Money) -> bool:
        self._same(other)
        return self.amount < other.amount

    def __repr__(self) -> str:
        return f"Money({self.amount:.2f} {self.currency})"

    def __str__(self) -> str:
        return f"{self.amount:,.2f} {self.currency}"


def total(amounts: list[Money], currency: str) -> Money:
    """The sum of ``amounts``, all in ``currency`` (zero when there are none)."""
    result = Money(0, currency)
    for amount in amounts:
        result = result + amount
    return result
