from datetime import date
from decimal import Decimal

from billing import Invoice, Money


def make_invoice() -> Invoice:
    invoice = Invoice("2024-0042", "Acme GmbH", "EUR", date(2024, 3, 1), discount=Decimal("5"))
    invoice.add("widget", 10, Money("80.00", "EUR"))
    invoice.add("gadget", 2, Money("100.00", "EUR"))
    return invoice


def test_the_gross_adds_the_tax() -> None:
    assert make_invoice().gross == Money("1200.00", "EUR")


def test_early_payment_takes_the_discount_once() -> None:
    invoice = make_invoice()
    assert invoice.due_on(date(2024, 3, 5)) == Money("1140.00", "EUR")


def test_late_payment_pays_the_gross() -> None:
    assert make_invoice().due_on(date(2024, 4, 1)) == Money("1200.00", "EUR")
