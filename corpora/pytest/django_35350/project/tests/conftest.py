import pytest

from inventory.models import Product, Supplier


@pytest.fixture
def supplier(db):
    return Supplier.objects.create(name="Northwind", feed_url="https://example.com/feed")


@pytest.fixture
def stocked(supplier):
    Product.objects.create(
        id=101, supplier=supplier, sku="NW-101", name="Tea", unit_price_cents=450, quantity=10
    )
    return supplier
