"""Discounts: a percentage off, a fixed amount off, buy X get Y free, and coupon codes.

A discount takes a line's amount and quantity and returns the reduced amount;
:func:`apply_discounts` applies several in order and never goes below zero.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal
from typing import Protocol, Sequence

from .money import Money


class DiscountError(ValueError):
    """A discount that makes no sense (more than 100 % off, a coupon past its date)."""


class Discount(Protocol):
    def apply(self, amount: Money, quantity: Decimal) -> Money: ...

    def describe(self) -> str: ...


@dataclass(frozen=True)
class PercentageOff:
    """``percent`` off the amount, rounded to the currency's minor unit."""

    percent: Decimal

    def __post_init__(self) -> None:
        if not Decimal(0) < self.percent <= Decimal(100):
            raise DiscountError(f"a percentage discount must be in (0, 100], not {self.percent}")

    def apply(self, amount: Money, quantity: Decimal) -> Money:
        return (amount - amount.percent(self.percent)).rounded()

    def describe(self) -> str:
        return f"{self.percent.normalize()}% off"


@dataclass(frozen=True)
class FixedOff:
    """A fixed amount off the line (per line, not per item)."""

    off: Money

    def apply(self, amount: Money, quantity: Decimal) -> Money:
        if self.off.currency != amount.currency:
            raise DiscountError(f"a discount in {self.off.currency} on an amount in {amount.currency}")
        return amount - self.off

    def describe(self) -> str:
        return f"{self.off} off"


@dataclass(frozen=True)
class BuyXGetY:
    """For every ``buy`` items bought, ``free`` more are free (the unit price is the average)."""

    buy: int
    free: int

    def __post_init__(self) -> None:
        if self.buy < 1 or self.free < 1:
            raise DiscountError("buy and free must both be at least 1")

    def apply(self, amount: Money, quantity: Decimal) -> Money:
        group = self.buy + self.free
        free_items = (quantity / group).to_integral_value(rounding=ROUND_FLOOR) * self.free
        if free_items <= 0:
            return amount
        unit = amount / quantity
        return (amount - unit * free_items).rounded()

    def describe(self) -> str:
        return f"buy {self.buy}, get {self.free} free"


@dataclass(frozen=True)
class Coupon:
    """A code that grants a discount until a date, at most ``uses`` times."""

    code: str
    discount: PercentageOff | FixedOff
    valid_until: datetime.date
    uses: int = 1

    def check(self, today: datetime.date, used: int) -> None:
        if today > self.valid_until:
            raise DiscountError(f"coupon {self.code} expired on {self.valid_until.isoformat()}")
        if used >= self.uses:
            raise DiscountError(f"coupon {self.code} has been used {used} times already")

    def apply(self, amount: Money, quantity: Decimal) -> Money:
        return self.discount.apply(amount, quantity)

    def describe(self) -> str:
        return f"coupon {self.code}: {self.discount.describe()}"


class CouponBook:
    """Known coupons and how often each was redeemed."""

    def __init__(self, coupons: Sequence[Coupon] = ()) -> None:
        self.coupons = {coupon.code.upper(): coupon for coupon in coupons}
        self.redeemed: dict[str, int] = {}

    def redeem(self, code: str, today: datetime.date) -> Coupon:
        key = code.strip().upper()
        coupon = self.coupons.get(key)
        if coupon is None:
            raise DiscountError(f"unknown coupon {code!r}")
        coupon.check(today, self.redeemed.get(key, 0))
        self.redeemed[key] = self.redeemed.get(key, 0) + 1
        return coupon


def apply_discounts(amount: Money, quantity: Decimal, discounts: Sequence[Discount]) -> Money:
    """``amount`` after every discount in order, never below zero."""
    for discount in discounts:
        amount = discount.apply(amount, quantity)
        if amount.is_negative:
            return Money.zero(amount.currency)
    return amount


def describe_all(discounts: Sequence[Discount]) -> str:
    return "; ".join(discount.describe() for discount in discounts) or "no discount"
