from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shop import Cart, bulk_discount


def test_empty_cart_costs_nothing():
    assert Cart().total() == Decimal("0.00")


def test_tax_is_added_to_the_net_price():
    cart = Cart()
    cart.add("pen", "2.50", 4)
    assert cart.tax() == Decimal("2.00")
    assert cart.total() == Decimal("12.00")


def test_quantity_must_be_positive():
    with pytest.raises(ValueError, match="positive"):
        Cart().add("pen", "2.50", 0)


@given(st.integers(min_value=1, max_value=9))
def test_no_discount_below_ten(quantity):
    assert bulk_discount(quantity) == 0


def test_fifty_items_get_the_big_discount():
    cart = Cart()
    cart.add("pen", "1.00", 30)
    cart.add("pad", "1.00", 20)
    assert cart.net() == Decimal("40.00")
