"""Invoicing for a small shop: line items, invoices and their variants.

Amounts are integer cents throughout, so that totals compare exactly.  The bug:
``TaxedInvoice.total`` overrides ``Invoice.total`` but builds on
``super().subtotal()`` instead of ``super().total()``, so a discount given on a
taxed invoice is silently dropped.
"""

from __future__ import annotations

import datetime as _dt
import enum
import functools
import itertools
import re
from collections import defaultdict
from typing import Iterable, Iterator, Optional

CURRENCY = "EUR"
DEFAULT_TERMS_DAYS = 30
SKU_PATTERN = re.compile(r"^[A-Z]{3}-\d{4}$")
_invoice_numbers = itertools.count(1000)


class Status(enum.Enum):
    DRAFT = "draft"
    SENT = "sent"
    PAID = "paid"
    VOID = "void"


def format_cents(cents: int, currency: str = CURRENCY) -> str:
    """Render an amount of cents as ``12.34 EUR``."""
    sign = "-" if cents < 0 else ""
    whole, frac = divmod(abs(cents), 100)
    return f"{sign}{whole}.{frac:02d} {currency}"


def is_valid_sku(sku: str) -> bool:
    return bool(SKU_PATTERN.match(sku))


class LineItem:
    """One product on an invoice: a name, a quantity and a unit price in cents."""

    def __init__(self, name: str, quantity: int, unit_price: int, sku: str = "GEN-0000"):
        if quantity < 0:
            raise ValueError("quantity must not be negative")
        self.name = name
        self.quantity = quantity
        self.unit_price = unit_price
        self.sku = sku

    @property
    def amount(self) -> int:
        return self.quantity * self.unit_price

    def __repr__(self) -> str:
        return f"LineItem({self.name!r}, {self.quantity}, {self.unit_price})"


class Customer:
    def __init__(self, name: str, email: str = "", country: str = "DE"):
        self.name = name
        self.email = email
        self.country = country

    def is_domestic(self) -> bool:
        return self.country == "DE"

    def greeting(self) -> str:
        first = self.name.split()[0] if self.name else "customer"
        return f"Dear {first},"


class Invoice:
    """A list of line items with an optional percentage discount."""

    kind = "invoice"

    def __init__(self, items: Iterable[LineItem], discount: int = 0,
                 customer: Optional[Customer] = None):
        self.items = list(items)
        self.discount = discount
        self.customer = customer
        self.number = next(_invoice_numbers)
        self.status = Status.DRAFT
        self.issued = _dt.date(2024, 1, 15)

    def subtotal(self) -> int:
        return sum(item.amount for item in self.items)

    def discount_amount(self) -> int:
        return self.subtotal() * self.discount // 100

    def total(self) -> int:
        return self.subtotal() - self.discount_amount()

    def due_date(self) -> _dt.date:
        return self.issued + _dt.timedelta(days=DEFAULT_TERMS_DAYS)

    def send(self) -> None:
        if self.status is not Status.DRAFT:
            raise RuntimeError(f"invoice {self.number} was already sent")
        self.status = Status.SENT

    def lines(self) -> Iterator[str]:
        yield f"{self.kind.title()} #{self.number}"
        for item in self.items:
            yield f"  {item.quantity} x {item.name:<12} {format_cents(item.amount)}"
        if self.discount:
            yield f"  discount {self.discount}%: -{format_cents(self.discount_amount())}"
        yield f"  total: {format_cents(self.total())}"

    def render(self) -> str:
        return "\n".join(self.lines())


class TaxedInvoice(Invoice):
    """An invoice that adds value-added tax at ``rate`` percent."""

    kind = "taxed invoice"

    def __init__(self, items: Iterable[LineItem], discount: int = 0,
                 customer: Optional[Customer] = None, rate: int = 19):
        super().__init__(items, discount, customer)
        self.rate = rate

    def tax(self) -> int:
        return super().total() * self.rate // 100

    def total(self) -> int:
        net = super().subtotal()
        return net + net * self.rate // 100


class ExportInvoice(Invoice):
    """An invoice to a customer abroad: no tax, but a customs fee."""

    kind = "export invoice"
    customs_fee = 2500

    def total(self) -> int:
        return super().total() + self.customs_fee


class CreditNote(Invoice):
    """Money returned to a customer; amounts are negative."""

    kind = "credit note"

    def total(self) -> int:
        return -super().total()


@functools.lru_cache(maxsize=None)
def shipping_cost(weight_grams: int, express: bool = False) -> int:
    base = 490 if weight_grams <= 1000 else 490 + (weight_grams - 1000) // 500 * 120
    return base * 2 if express else base


def revenue_by_kind(invoices: Iterable[Invoice]) -> dict[str, int]:
    totals: dict[str, int] = defaultdict(int)
    for invoice in invoices:
        if invoice.status is not Status.VOID:
            totals[invoice.kind] += invoice.total()
    return dict(totals)


def overdue(invoices: Iterable[Invoice], today: _dt.date) -> list[Invoice]:
    return [inv for inv in invoices if inv.status is Status.SENT and inv.due_date() < today]


class InventoryRecord:
    """Unrelated to invoicing: how many of a product are in stock."""

    def __init__(self, sku: str, on_hand: int = 0, reserved: int = 0):
        if not is_valid_sku(sku):
            raise ValueError(f"bad SKU: {sku}")
        self.sku = sku
        self.on_hand = on_hand
        self.reserved = reserved

    @property
    def available(self) -> int:
        return max(0, self.on_hand - self.reserved)

    def reserve(self, quantity: int) -> bool:
        if quantity > self.available:
            return False
        self.reserved += quantity
        return True


def warehouse_report(records: Iterable[InventoryRecord]) -> str:
    rows = sorted(records, key=lambda r: (-r.available, r.sku))
    return "\n".join(f"{r.sku}: {r.available} available" for r in rows)
