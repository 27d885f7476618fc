import pytest

from inventory.stock import Warehouse


def pytest_configure(config):
    config.addinivalue_line("markers", "shipping: tests that ship items")


@pytest.fixture
def warehouse(request):
    house = Warehouse("main")
    for sku in ("bolt", "nut", "washer"):
        house.receive(sku, request.config.getoption("--stock-size"))
    return house
