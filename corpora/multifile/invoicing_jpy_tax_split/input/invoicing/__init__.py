"""Invoicing for a small shop: money, tax, a catalog, customers, discounts, invoices.

The public names are re-exported here; each lives in its own module.
"""

from .catalog import Catalog, CatalogError, Product
from .customers import Address, Customer, CustomerError
from .discounts import BuyXGetY, Coupon, CouponBook, FixedOff, PercentageOff
from .invoice import Invoice, InvoiceError, InvoiceLine
from .money import CurrencyError, ExchangeRates, Money
from .render import render_csv, render_markdown, render_text
from .storage import InvoiceStore
from .tax import DEFAULT_TABLE, TaxError, TaxTable

__version__ = "0.4.1"

__all__ = [
    "DEFAULT_TABLE",
    "Address",
    "BuyXGetY",
    "Catalog",
    "CatalogError",
    "Coupon",
    "CouponBook",
    "CurrencyError",
    "Customer",
    "CustomerError",
    "ExchangeRates",
    "FixedOff",
    "Invoice",
    "InvoiceError",
    "InvoiceLine",
    "InvoiceStore",
    "Money",
    "PercentageOff",
    "Product",
    "TaxError",
    "TaxTable",
    "render_csv",
    "render_markdown",
    "render_text",
]
