"""Carts of items, with quantity discounts and a tax rate."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

TAX_RATE = Decimal("0.20")
CENT = Decimal("0.01")


@dataclass(frozen=True)
class Item:
    sku: str
    unit_price: Decimal
    quantity: int = 1

    def subtotal(self) -> Decimal:
        return self.unit_price * self.quantity


def bulk_discount(quantity: int) -> Decimal:
    """10% off from 10 items, 20% off from 50."""
    if quantity > 50:
        return Decimal("0.20")
    if quantity >= 10:
        return Decimal("0.10")
    return Decimal("0")


@dataclass
class Cart:
    items: list[Item] = field(default_factory=list)
    coupon: Decimal = Decimal("0")

    def add(self, sku: str, unit_price: str, quantity: int = 1) -> None:
        if quantity <= 0:
            raise ValueError(f"quantity must be positive, not {quantity}")
        self.items.append(Item(sku, Decimal(unit_price), quantity))

    def quantity(self) -> int:
        return sum(item.quantity for item in self.items)

    def net(self) -> Decimal:
        total = sum((item.subtotal() for item in self.items), Decimal("0"))
        discounted = total * (1 - bulk_discount(self.quantity()))
        return max(discounted - self.coupon, Decimal("0"))

    def tax(self) -> Decimal:
        return (self.net() * TAX_RATE).quantize(CENT, rounding=ROUND_HALF_UP)

    def total(self) -> Decimal:
        return (self.net() + self.tax()).quantize(CENT, rounding=ROUND_HALF_UP)

    def receipt(self) -> str:
        lines = [f"{item.quantity} x {item.sku} @ {item.unit_price}" for item in self.items]
        lines.append(f"total {self.total()}")
        return "\n".join(lines)
