import json

import pytest
from django.urls import reverse

from inventory.models import Product


def post_feed(client, supplier, rows):
    return client.post(
        reverse("inventory:receive-feed", args=[supplier.pk]),
        data=json.dumps({"products": rows}),
        content_type="application/json",
    )


@pytest.mark.django_db
def test_stock_value_page(client, stocked):
    response = client.get(reverse("inventory:stock-value", args=[stocked.pk]))
    assert response.json()["total_cents"] == 4500


@pytest.mark.django_db
def test_the_bug(client, stocked):
    # Django 5.0 to 5.0.4: save() with the primary key set tries an UPDATE
    # first, and reading the generated field's value for it refreshes the
    # instance from the database, where product 102 is not yet (ticket #35350)
    rows = [
        {"id": 101, "sku": "NW-101", "name": "Tea", "unit_price_cents": 450, "quantity": 12},
        {"id": 102, "sku": "NW-102", "name": "Coffee", "unit_price_cents": 900, "quantity": 3},
    ]
    response = post_feed(client, stocked, rows)
    assert response.json() == {"saved": 2}
    assert Product.objects.get(id=101).stock_value_cents == 5400
    assert Product.objects.get(id=102).stock_value_cents == 2700
