"""Unit tests of invoicing.money (run with pytest from the project folder)."""

from decimal import Decimal

import pytest

from invoicing.money import CurrencyError, Money, parse_amount, total


def test_parse_amount_reads_grouped_digits():
    assert parse_amount("1,234.50") == Decimal("1234.50")
    assert parse_amount("-12") == Decimal(-12)


def test_adding_currencies_fails():
    with pytest.raises(CurrencyError):
        Money.of(1, "EUR") + Money.of(1, "USD")


def test_allocate_adds_up_in_euros():
    parts = Money.of("10.00", "EUR").allocate([1, 1, 1])
    assert [str(p) for p in parts] == ["3.34 EUR", "3.33 EUR", "3.33 EUR"]
    assert total(parts) == Money.of("10.00", "EUR")


def test_split_rejects_zero_parts():
    with pytest.raises(ValueError):
        Money.of(1, "EUR").split(0)
