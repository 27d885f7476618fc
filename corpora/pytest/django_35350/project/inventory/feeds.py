"""Keep the stock in step with a supplier's feed.

Each row of a feed names a product by the id the supplier gives it; that id is
the product's primary key here, so a row saves a new product or overwrites the
one already stored.
"""
from django.db import transaction

from .models import Product

FIELDS = ("sku", "name", "unit_price_cents", "quantity")


class FeedError(ValueError):
    pass


def product_from_row(supplier, row):
    missing = [name for name in ("id",) + FIELDS if name not in row]
    if missing:
        raise FeedError(f"row {row!r} lacks {', '.join(missing)}")
    return Product(
        id=int(row["id"]),
        supplier=supplier,
        sku=str(row["sku"]),
        name=str(row["name"]),
        unit_price_cents=int(row["unit_price_cents"]),
        quantity=int(row["quantity"]),
    )


@transaction.atomic
def sync_feed(supplier, rows):
    """Save every row of the feed; returns the number of products saved."""
    saved = 0
    for row in rows:
        product = product_from_row(supplier, row)
        product.save()
        saved += 1
    return saved
