import pytest

from inventory.stock import OutOfStock


def test_reserving_holds_items_back(warehouse):
    warehouse.reserve("bolt", 5)
    assert warehouse.available("bolt") == 15


def test_cannot_reserve_more_than_available(warehouse):
    with pytest.raises(OutOfStock):
        warehouse.reserve("nut", 21)


def test_release_gives_items_back(warehouse):
    warehouse.reserve("washer", 4)
    warehouse.release("washer", 3)
    assert warehouse.available("washer") == 19


@pytest.mark.shipping
def test_shipping_keeps_the_other_reservations(warehouse):
    warehouse.reserve("bolt", 6)
    warehouse.ship("bolt", 2)
    assert warehouse.available("bolt") == 14
    assert warehouse.report()[0] == "bolt: 18 (4 reserved)"
