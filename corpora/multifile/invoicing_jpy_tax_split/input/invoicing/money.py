"""Money amounts in a currency, with the currency's own number of decimals.

Amounts are :class:`~decimal.Decimal` values. Arithmetic keeps full precision;
rounding happens only when asked for (:meth:`Money.rounded`), to the
currency's minor unit (a cent for EUR, a whole yen for JPY, a fils for BHD).
:meth:`Money.allocate` splits an amount into parts that add up to it exactly,
which is what taxes spread over invoice lines and instalments need.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Iterable, Sequence, Union

Number = Union[Decimal, int, str]

#: Decimals of each currency's minor unit (ISO 4217).
MINOR_UNITS = {
    "EUR": 2,
    "USD": 2,
    "GBP": 2,
    "CHF": 2,
    "SEK": 2,
    "NOK": 2,
    "DKK": 2,
    "PLN": 2,
    "JPY": 0,
    "KRW": 0,
    "ISK": 0,
    "BHD": 3,
    "KWD": 3,
    "TND": 3,
}

SYMBOLS = {"EUR": "\u20ac", "USD": "$", "GBP": "\u00a3", "JPY": "\u00a5", "CHF": "CHF"}

#: The smallest coin of most currencies.
CENT = Decimal("0.01")

_AMOUNT = re.compile(r"^\s*([+-]?)\s*(\d{1,3}(?:[ ,']\d{3})*|\d+)(?:[.](\d+))?\s*$")


class CurrencyError(ValueError):
    """An unknown currency, or amounts in different currencies combined."""


def minor_units(currency: str) -> int:
    """Decimals of the currency's minor unit."""
    try:
        return MINOR_UNITS[currency]
    except KeyError:
        raise CurrencyError(f"unknown currency {currency!r}") from None


def quantum(currency: str) -> Decimal:
    """The currency's minor unit as a Decimal: 0.01 for EUR, 1 for JPY."""
    return Decimal(1).scaleb(-minor_units(currency))


def parse_amount(text: str) -> Decimal:
    """Read an amount as people write it: ``1234.5``, ``1,234.50``, ``-12``, ``1 000``."""
    match = _AMOUNT.match(text)
    if match is None:
        raise ValueError(f"not an amount: {text!r}")
    sign, whole, fraction = match.groups()
    digits = re.sub(r"[ ,']", "", whole)
    value = Decimal(f"{digits}.{fraction}" if fraction else digits)
    return -value if sign == "-" else value


def _decimal(value: Number) -> Decimal:
    if isinstance(value, Decimal):
        return value
    if isinstance(value, int):
        return Decimal(value)
    try:
        return parse_amount(value)
    except ValueError:
        try:
            return Decimal(value)
        except InvalidOperation:
            raise ValueError(f"not an amount: {value!r}") from None


@dataclass(frozen=True)
class Money:
    """An amount of one currency. Equal amounts compare equal whatever their exponent."""

    amount: Decimal
    currency: str

    def __post_init__(self) -> None:
        minor_units(self.currency)  # raises for an unknown currency
        object.__setattr__(self, "amount", _decimal(self.amount))

    @classmethod
    def of(cls, amount: Number, currency: str) -> Money:
        return cls(_decimal(amount), currency)

    @classmethod
    def zero(cls, currency: str) -> Money:
        return cls(Decimal(0), currency)

    def _same(self, other: Money) -> None:
        if not isinstance(other, Money):
            raise TypeError(f"cannot combine Money with {type(other).__name__}")
        if other.currency != self.currency:
            raise CurrencyError(f"cannot combine {self.currency} with {other.currency}")

    def __add__(self, other: Money) -> Money:
        self._same(other)
        return Money(self.amount + other.amount, self.currency)

    def __radd__(self, other: object) -> Money:
        if other == 0:  # sum() starts from 0
            return self
        return NotImplemented

    def __sub__(self, other: Money) -> Money:
        self._same(other)
        return Money(self.amount - other.amount, self.currency)

    def __neg__(self) -> Money:
        return Money(-self.amount, self.currency)

    def __mul__(self, factor: Number) -> Money:
        if isinstance(factor, Money):
            raise TypeError("cannot multiply Money by Money")
        return Money(self.amount * _decimal(factor), self.currency)

    __rmul__ = __mul__

    def __truediv__(self, divisor: Number) -> Money:
        value = _decimal(divisor)
        if value == 0:
            raise ZeroDivisionError("division of Money by zero")
        return Money(self.amount / value, self.currency)

    def __lt__(self, other: Money) -> bool:
        self._same(other)
        return self.amount < other.amount

    def __le__(self, other: Money) -> bool:
        self._same(other)
        return self.amount <= other.amount

    def __gt__(self, other: Money) -> bool:
        self._same(other)
        return self.amount > other.amount

    def __ge__(self, other: Money) -> bool:
        self._same(other)
        return self.amount >= other.amount

    def __bool__(self) -> bool:
        return self.amount != 0

    @property
    def is_negative(self) -> bool:
        return self.amount < 0

    def rounded(self, rounding: str = ROUND_HALF_UP) -> Money:
        """The amount rounded to the currency's minor unit."""
        return Money(self.amount.quantize(quantum(self.currency), rounding=rounding), self.currency)

    def percent(self, rate: Number) -> Money:
        """``rate`` percent of the amount, unrounded."""
        return Money(self.amount * _decimal(rate) / 100, self.currency)

    def allocate(self, weights: Sequence[Number]) -> list[Money]:
        """Split the amount in proportion to ``weights``; the parts add up to it exactly.

        Every part is first rounded down to the minor unit; what is left over
        goes out one minor unit at a time, first to the parts that lost most
        by rounding (the largest-remainder method).
        """
        if not weights:
            raise ValueError("cannot allocate over no weights")
        parts = [_decimal(w) for w in weights]
        if any(w < 0 for w in parts):
            raise ValueError("allocation weights must not be negative")
        whole = sum(parts)
        if whole == 0:
            raise ValueError("allocation weights must not all be zero")
        unit = quantum(self.currency)
        amount = self.rounded().amount
        exact = [amount * w / whole for w in parts]
        shares = [e.quantize(unit, rounding=ROUND_DOWN) for e in exact]
        left = amount - sum(shares)
        order = sorted(range(len(shares)), key=lambda i: (shares[i] - exact[i], i))
        step = CENT
        index = 0
        while left > 0:
            shares[order[index % len(order)]] += step
            left -= step
            index += 1
        return [Money(share, self.currency) for share in shares]

    def split(self, count: int) -> list[Money]:
        """``count`` equal parts (as equal as the minor unit allows)."""
        if count < 1:
            raise ValueError("split into at least one part")
        return self.allocate([1] * count)

    def format(self, symbol: bool = False, grouping: bool = True) -> str:
        """``1,234.50 EUR``, or ``\u20ac1,234.50`` with ``symbol``."""
        value = self.amount.quantize(quantum(self.currency), rounding=ROUND_HALF_EVEN)
        text = f"{abs(value):,}" if grouping else f"{abs(value)}"
        sign = "-" if value < 0 else ""
        if symbol and self.currency in SYMBOLS:
            return f"{sign}{SYMBOLS[self.currency]}{text}"
        return f"{sign}{text} {self.currency}"

    def __str__(self) -> str:
        return f"{self.amount.quantize(quantum(self.currency))} {self.currency}"


def total(amounts: Iterable[Money], currency: str | None = None) -> Money:
    """The sum of ``amounts``; ``currency`` names the result's currency when there are none."""
    result: Money | None = None
    for amount in amounts:
        result = amount if result is None else result + amount
    if result is None:
        if currency is None:
            raise ValueError("the total of no amounts needs a currency")
        return Money.zero(currency)
    if currency is not None and result.currency != currency:
        raise CurrencyError(f"expected {currency}, got {result.currency}")
    return result


class ExchangeRates:
    """Rates against one base currency, for converting amounts between currencies."""

    def __init__(self, base: str, rates: dict[str, Number] | None = None) -> None:
        minor_units(base)
        self.base = base
        self.rates: dict[str, Decimal] = {base: Decimal(1)}
        for currency, rate in (rates or {}).items():
            self.set(currency, rate)

    def set(self, currency: str, rate: Number) -> None:
        """One unit of the base buys ``rate`` units of ``currency``."""
        minor_units(currency)
        value = _decimal(rate)
        if value <= 0:
            raise ValueError(f"exchange rate for {currency} must be positive")
        self.rates[currency] = value

    def rate(self, source: str, target: str) -> Decimal:
        try:
            return self.rates[target] / self.rates[source]
        except KeyError as missing:
            raise CurrencyError(f"no exchange rate for {missing.args[0]}") from None

    def convert(self, money: Money, target: str) -> Money:
        """``money`` in ``target``, rounded to its minor unit."""
        if money.currency == target:
            return money
        return Money(money.amount * self.rate(money.currency, target), target).rounded()
