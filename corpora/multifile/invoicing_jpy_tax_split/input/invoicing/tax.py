"""Value-added tax: rates by region and product category, and tax per invoice.

Tax is computed on the invoice's net total per rate (as most VAT regimes
require: one rounding per rate, not one per line), then spread back over the
lines in proportion to their net amounts, so that every line can show its
share and the shares add up to the tax charged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Iterable, Mapping

from .money import Money, total

#: Categories that every table knows; a product names one of them.
CATEGORIES = ("goods", "food", "books", "services", "digital", "export")


class TaxError(LookupError):
    """No rate for a region and category."""


@dataclass(frozen=True)
class Rate:
    """A named rate in percent, e.g. ``Rate("standard", Decimal("19"))``."""

    name: str
    percent: Decimal

    def __str__(self) -> str:
        return f"{self.name} {self.percent.normalize()}%"


ZERO = Rate("zero", Decimal(0))


@dataclass
class Region:
    """The rates of one tax region, by category."""

    code: str
    currency: str
    standard: Rate
    by_category: dict[str, Rate] = field(default_factory=dict)
    reverse_charge: bool = False
    """Business customers from elsewhere pay the tax themselves (EU B2B)."""

    def rate(self, category: str) -> Rate:
        if category not in CATEGORIES:
            raise TaxError(f"unknown product category {category!r}")
        if category == "export":
            return ZERO
        return self.by_category.get(category, self.standard)


class TaxTable:
    """Regions by code."""

    def __init__(self, regions: Iterable[Region] = ()) -> None:
        self.regions: dict[str, Region] = {}
        for region in regions:
            self.add(region)

    def add(self, region: Region) -> None:
        if region.code in self.regions:
            raise ValueError(f"region {region.code} defined twice")
        self.regions[region.code] = region

    def region(self, code: str) -> Region:
        try:
            return self.regions[code]
        except KeyError:
            raise TaxError(f"no tax region {code!r}") from None

    def rate(self, code: str, category: str) -> Rate:
        return self.region(code).rate(category)

    def describe(self) -> list[str]:
        lines = []
        for code in sorted(self.regions):
            region = self.regions[code]
            special = ", ".join(f"{c}: {r}" for c, r in sorted(region.by_category.items()))
            lines.append(f"{code} ({region.currency}): {region.standard}" + (f"; {special}" if special else ""))
        return lines


def _rate(name: str, percent: str) -> Rate:
    return Rate(name, Decimal(percent))


DEFAULT_TABLE = TaxTable(
    [
        Region("DE", "EUR", _rate("standard", "19"), {"food": _rate("reduced", "7"), "books": _rate("reduced", "7")}, True),
        Region("FR", "EUR", _rate("standard", "20"), {"food": _rate("reduced", "5.5"), "books": _rate("reduced", "5.5")}, True),
        Region("NL", "EUR", _rate("standard", "21"), {"food": _rate("reduced", "9"), "books": _rate("reduced", "9")}, True),
        Region("IE", "EUR", _rate("standard", "23"), {"food": _rate("zero", "0"), "books": _rate("zero", "0")}, True),
        Region("GB", "GBP", _rate("standard", "20"), {"food": _rate("zero", "0"), "books": _rate("zero", "0")}),
        Region("CH", "CHF", _rate("standard", "8.1"), {"food": _rate("reduced", "2.6"), "books": _rate("reduced", "2.6")}),
        Region("JP", "JPY", _rate("standard", "10"), {"food": _rate("reduced", "8")}),
        Region("US-OR", "USD", _rate("none", "0")),
    ]
)


@dataclass(frozen=True)
class TaxLine:
    """The tax of one rate on an invoice: the net it applies to and the tax charged."""

    rate: Rate
    net: Money
    tax: Money

    @property
    def gross(self) -> Money:
        return self.net + self.tax


def tax_for(net: Money, rate: Rate) -> Money:
    """The tax on ``net`` at ``rate``, rounded to the currency's minor unit."""
    return net.percent(rate.percent).rounded()


def tax_lines(nets: Iterable[tuple[Rate, Money]], currency: str) -> list[TaxLine]:
    """One :class:`TaxLine` per rate, from (rate, net) pairs, in order of the rates' first use."""
    grouped: dict[Rate, list[Money]] = {}
    for rate, net in nets:
        grouped.setdefault(rate, []).append(net)
    result = []
    for rate, amounts in grouped.items():
        net = total(amounts, currency)
        result.append(TaxLine(rate, net, tax_for(net, rate)))
    return result


def spread(tax: Money, nets: list[Money]) -> list[Money]:
    """``tax`` spread over lines in proportion to their ``nets``; the shares add up to ``tax``."""
    if not nets:
        return []
    if all(not net for net in nets):
        return tax.split(len(nets))
    return tax.allocate([abs(net.amount) for net in nets])


def reverse_charged(table: TaxTable, seller: str, buyer: str | None, business: bool) -> bool:
    """Whether a business buyer in another region of the same scheme pays the tax itself."""
    if buyer is None or not business or buyer == seller:
        return False
    ours, theirs = table.region(seller), table.region(buyer)
    return ours.reverse_charge and theirs.reverse_charge


def summary(lines: Iterable[TaxLine]) -> Mapping[str, str]:
    """Rate name → ``net / tax`` text, for receipts."""
    return {str(line.rate): f"{line.net} / {line.tax}" for line in lines}
