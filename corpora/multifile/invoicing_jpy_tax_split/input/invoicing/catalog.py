"""The product catalog: products by SKU, with categories, prices per currency and stock."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Iterator

from .money import Money
from .tax import CATEGORIES

_SKU = re.compile(r"^[A-Z]{2,4}-\d{3,6}$")


class CatalogError(LookupError):
    """An unknown SKU, a bad product record, or not enough stock."""


@dataclass
class Product:
    """Something to sell: a SKU, a name, a tax category, and a price in each currency it is sold in."""

    sku: str
    name: str
    category: str
    prices: dict[str, Money] = field(default_factory=dict)
    stock: int | None = None
    """None for products without stock (services, downloads)."""
    tags: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if not _SKU.match(self.sku):
            raise CatalogError(f"not a SKU: {self.sku!r} (expected e.g. ABC-1234)")
        if self.category not in CATEGORIES:
            raise CatalogError(f"{self.sku}: unknown category {self.category!r}")
        for currency, price in self.prices.items():
            if price.currency != currency:
                raise CatalogError(f"{self.sku}: price {price} filed under {currency}")

    def price(self, currency: str) -> Money:
        try:
            return self.prices[currency]
        except KeyError:
            raise CatalogError(f"{self.sku} has no price in {currency}") from None

    def set_price(self, amount: Decimal | int | str, currency: str) -> None:
        self.prices[currency] = Money.of(amount, currency)

    @property
    def in_stock(self) -> bool:
        return self.stock is None or self.stock > 0


class Catalog:
    """Products by SKU."""

    def __init__(self, products: list[Product] | None = None) -> None:
        self.products: dict[str, Product] = {}
        for product in products or []:
            self.add(product)

    def __len__(self) -> int:
        return len(self.products)

    def __iter__(self) -> Iterator[Product]:
        return iter(sorted(self.products.values(), key=lambda p: p.sku))

    def add(self, product: Product) -> None:
        if product.sku in self.products:
            raise CatalogError(f"duplicate SKU {product.sku}")
        self.products[product.sku] = product

    def get(self, sku: str) -> Product:
        try:
            return self.products[sku.upper()]
        except KeyError:
            raise CatalogError(f"unknown SKU {sku!r}") from None

    def take(self, sku: str, quantity: int) -> Product:
        """Reserve ``quantity`` items of a product; raises when there are not enough."""
        product = self.get(sku)
        if quantity <= 0:
            raise CatalogError(f"quantity must be positive, not {quantity}")
        if product.stock is not None:
            if product.stock < quantity:
                raise CatalogError(f"{sku}: {quantity} wanted, {product.stock} in stock")
            product.stock -= quantity
        return product

    def restock(self, sku: str, quantity: int) -> None:
        product = self.get(sku)
        if product.stock is None:
            raise CatalogError(f"{sku} has no stock to replenish")
        product.stock += quantity

    def search(self, text: str = "", category: str | None = None, tag: str | None = None) -> list[Product]:
        """Products whose name contains ``text``, optionally of one category or with one tag."""
        needle = text.casefold()
        return [
            product
            for product in self
            if needle in product.name.casefold()
            and (category is None or product.category == category)
            and (tag is None or tag in product.tags)
        ]

    def price_list(self, currency: str) -> list[tuple[str, str, str]]:
        """(SKU, name, price) of every product sold in ``currency``."""
        return [(p.sku, p.name, p.price(currency).format()) for p in self if currency in p.prices]


def load_rows(rows: list[dict[str, str]]) -> Catalog:
    """A catalog from CSV-like rows: sku, name, category, stock, and one column per currency."""
    catalog = Catalog()
    for number, row in enumerate(rows, start=1):
        try:
            stock = int(row["stock"]) if row.get("stock") else None
            product = Product(row["sku"], row["name"], row["category"], stock=stock)
        except KeyError as missing:
            raise CatalogError(f"row {number}: no {missing.args[0]} column") from None
        for column, value in row.items():
            if len(column) == 3 and column.isupper() and value:
                product.set_price(value, column)
        catalog.add(product)
    return catalog
