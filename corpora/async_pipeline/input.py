"""A sales-report pipeline: parse CSV, convert currencies, aggregate, report.

It exercises most of the language a reducer has to keep valid while cutting:
dataclasses, decorators (with and without arguments), comprehensions,
lambdas, f-strings, try/except/else/finally, with-statements, generators, and
async functions run through ``asyncio.run``.

The bug: ``normalise_region`` turns "North East" into ``"north-east"``, but
the manager table is keyed without separators (``"northeast"``), so the report
raises ``KeyError: 'north-east'`` as soon as a two-word region appears.
"""

import asyncio
import contextlib
import csv
import functools
import io
import logging
import statistics
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

log = logging.getLogger("sales")

BASE_CURRENCY = "EUR"
REPORT_WIDTH = 48

RATES_TO_EUR = {"EUR": 1.0, "USD": 0.5, "GBP": 2.0, "CHF": 1.25}

REGION_MANAGERS = {
    "north": "Astrid",
    "south": "Bruno",
    "west": "Chiara",
    "east": "Dmitri",
    "northeast": "Elif",
    "southwest": "Farid",
}

GOOD_CSV = """\
region,currency,amount,units
North,EUR,100.0,4
south,USD,80.0,2
West ,GBP,10.0,1
north,CHF,40.0,3
"""

FAILING_CSV = """\
region,currency,amount,units
North,EUR,100.0,4
North East,EUR,30.0,1
"""

_registry: dict[str, Callable] = {}


def register(name):
    """Decorator with an argument: remember a report formatter by name."""
    def decorate(function):
        _registry[name] = function
        return function
    return decorate


def timed(function):
    """Decorator without arguments: log how long a call took."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            log.debug("%s took %.6f s", function.__name__, time.perf_counter() - start)
    return wrapper


@dataclass(frozen=True)
class Sale:
    region: str
    currency: str
    amount: float
    units: int = 1

    @property
    def unit_price(self) -> float:
        return self.amount / self.units if self.units else 0.0


@dataclass
class RegionSummary:
    region: str
    manager: str
    total: float = 0.0
    units: int = 0
    amounts: list = field(default_factory=list)

    def add(self, amount: float, units: int) -> None:
        self.total += amount
        self.units += units
        self.amounts.append(amount)

    @property
    def median(self) -> float:
        return statistics.median(self.amounts) if self.amounts else 0.0


class ParseError(ValueError):
    pass


def normalise_region(name: str) -> str:
    return name.strip().lower().replace(" ", "-")


@timed
def parse_sales(text: str) -> list:
    sales = []
    with io.StringIO(text) as handle:
        for number, row in enumerate(csv.DictReader(handle), start=2):
            try:
                sale = Sale(
                    region=normalise_region(row["region"]),
                    currency=row["currency"].strip().upper(),
                    amount=float(row["amount"]),
                    units=int(row["units"]),
                )
            except (KeyError, ValueError) as exc:
                raise ParseError(f"line {number}: {exc}") from exc
            else:
                sales.append(sale)
    return sales


async def fetch_rate(currency: str) -> tuple:
    """Pretend to ask a rate service; yields to the event loop once."""
    await asyncio.sleep(0)
    if currency not in RATES_TO_EUR:
        raise LookupError(f"no rate for {currency}")
    return currency, RATES_TO_EUR[currency]


async def fetch_rates(currencies: Iterable[str]) -> dict:
    pairs = await asyncio.gather(*(fetch_rate(c) for c in sorted(set(currencies))))
    return dict(pairs)


def convert(sales: list, rates: dict) -> list:
    return [
        Sale(s.region, BASE_CURRENCY, round(s.amount * rates[s.currency], 2), s.units)
        for s in sales
    ]


@timed
def summarise(sales: list) -> dict:
    by_region = {}
    for sale in sorted(sales, key=lambda s: (s.region, -s.amount)):
        if sale.region not in by_region:
            by_region[sale.region] = RegionSummary(sale.region, REGION_MANAGERS[sale.region])
        by_region[sale.region].add(sale.amount, sale.units)
    return by_region


@register("text")
def format_text(summary: dict) -> str:
    lines = [f"{'region':<12}{'manager':<10}{'total':>10}{'units':>8}", "-" * REPORT_WIDTH]
    lines += [
        f"{s.region:<12}{s.manager:<10}{s.total:>10.2f}{s.units:>8d}"
        for s in sorted(summary.values(), key=lambda s: s.total, reverse=True)
    ]
    return "\n".join(lines)


@register("csv")
def format_csv(summary: dict) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["region", "manager", "total", "units"])
    writer.writerows([s.region, s.manager, f"{s.total:.2f}", s.units] for s in summary.values())
    return out.getvalue()


@contextlib.contextmanager
def quiet_logging(level=logging.WARNING):
    previous = log.level
    log.setLevel(level)
    try:
        yield log
    finally:
        log.setLevel(previous)


async def build_report(text: str, style: str = "text") -> tuple:
    sales = parse_sales(text)
    rates = await fetch_rates(s.currency for s in sales)
    summary = summarise(convert(sales, rates))
    return summary, _registry[style](summary)


def top_regions(summary: dict, n: int = 2) -> list:
    return [name for name, _ in sorted(summary.items(), key=lambda kv: -kv[1].total)[:n]]


def run(text: str, style: str = "text") -> tuple:
    with quiet_logging():
        return asyncio.run(build_report(text, style))


# --- guard: the pipeline must still work on single-word regions
try:
    good_summary, good_report = run(GOOD_CSV)
    assert {k: v.total for k, v in good_summary.items()} == {
        "north": 150.0, "south": 40.0, "west": 20.0}
    assert good_report.splitlines()[2].startswith("north")
except Exception as exc:
    raise RuntimeError(f"guard failed: {exc!r}") from exc

# --- the failing run
summary, report = run(FAILING_CSV, style="csv")
print(report)
