# The test, appended to every candidate (only input.py is reduced).
def _guard():
    items = [LineItem("pen", 2, 150), LineItem("pad", 1, 400)]
    if Invoice(items).total() != 700:
        raise RuntimeError("plain total is broken")
    if Invoice(items, discount=10).total() != 630:
        raise RuntimeError("discount is broken")
    if TaxedInvoice(items, rate=20).total() != 840:
        raise RuntimeError("tax is broken")


try:
    _guard()
except Exception as exc:
    raise RuntimeError(f"guard failed: {exc!r}") from exc

invoice = TaxedInvoice([LineItem("pen", 2, 150), LineItem("pad", 1, 400)], discount=10, rate=20)
assert invoice.total() == 756, "My Test"
