"""A small invoicing package: money with a currency, invoice lines, discounts and what is due."""

from billing.money import Money
from billing.invoice import Invoice, Line

__all__ = ["Invoice", "Line", "Money"]
