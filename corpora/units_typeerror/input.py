"""Parcel shipping quotes with unit conversion.

The bug: ``to_kilograms`` knows "lb" and "pound" but not "lbs"; for that unit
it falls off the end of the function and returns ``None``, and the quote
fails later, far from the cause, with ``TypeError: unsupported operand
type(s) for *: 'NoneType' and 'float'``.
"""

import math
import re
from decimal import ROUND_HALF_UP, Decimal
from enum import Enum

RATE_PER_KG = 0.85
BASE_FEE = 4.9
VOLUMETRIC_DIVISOR = 5000  # cm^3 per kg, the carriers' convention
MAX_WEIGHT_KG = 31.5
POSTCODE = re.compile(r"^\d{5}$")

ZONE_SURCHARGE = {1: 0.0, 2: 1.5, 3: 3.0, 4: 7.5}


class Service(Enum):
    STANDARD = "standard"
    EXPRESS = "express"
    OVERNIGHT = "overnight"


SERVICE_FACTOR = {Service.STANDARD: 1.0, Service.EXPRESS: 1.6, Service.OVERNIGHT: 2.4}


def to_kilograms(value, unit):
    """Convert a weight to kilograms."""
    unit = unit.strip().lower()
    if unit in ("kg", "kilogram", "kilograms"):
        return float(value)
    if unit in ("g", "gram", "grams"):
        return value / 1000
    if unit in ("lb", "pound", "pounds"):
        return value * 0.45359237
    if unit in ("oz", "ounce", "ounces"):
        return value * 0.028349523125


def to_centimetres(value, unit):
    """Unrelated: convert a length to centimetres."""
    factors = {"mm": 0.1, "cm": 1.0, "m": 100.0, "in": 2.54, "ft": 30.48}
    try:
        return value * factors[unit]
    except KeyError:
        raise ValueError(f"unknown length unit {unit!r}") from None


def celsius_to_fahrenheit(celsius):
    """Unrelated: for the cold-chain label."""
    return celsius * 9 / 5 + 32


def zone_for(postcode):
    """Unrelated to the bug: the delivery zone from the first digit of a postcode."""
    if not POSTCODE.match(postcode):
        raise ValueError(f"bad postcode {postcode!r}")
    first = int(postcode[0])
    return 1 if first in (0, 1) else 2 if first < 5 else 3 if first < 8 else 4


def round_money(amount):
    return float(Decimal(str(amount)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


class Parcel:
    """A box with a weight and outer dimensions."""

    def __init__(self, weight, weight_unit="kg", dimensions=(10, 10, 10), length_unit="cm"):
        self.weight = weight
        self.weight_unit = weight_unit
        self.dimensions = dimensions
        self.length_unit = length_unit

    def weight_kg(self):
        return to_kilograms(self.weight, self.weight_unit)

    def volume_cm3(self):
        return math.prod(to_centimetres(side, self.length_unit) for side in self.dimensions)

    def volumetric_kg(self):
        return self.volume_cm3() / VOLUMETRIC_DIVISOR

    def billable_kg(self):
        """Unrelated to the bug: carriers bill the larger of actual and volumetric weight."""
        return max(self.weight_kg(), self.volumetric_kg())


def weight_charge(weight_kg):
    return weight_kg * RATE_PER_KG


def quote(parcel, postcode="10115", service=Service.STANDARD):
    """The price of shipping ``parcel`` to ``postcode``."""
    weight_kg = parcel.weight_kg()
    charge = weight_charge(weight_kg)
    if weight_kg > MAX_WEIGHT_KG:
        raise ValueError("too heavy for a parcel; book freight")
    price = (BASE_FEE + charge + ZONE_SURCHARGE[zone_for(postcode)]) * SERVICE_FACTOR[service]
    return round_money(price)


def cheapest(parcels, postcode):
    """Unrelated: the cheapest service level for each parcel."""
    return [min(Service, key=lambda s: quote(p, postcode, s)) for p in parcels]


class Label:
    """Unrelated: what gets printed on the box."""

    def __init__(self, name, street, postcode, city):
        self.lines = [name, street, f"{postcode} {city}"]

    def render(self, width=32):
        border = "+" + "-" * (width - 2) + "+"
        body = [f"|{line:<{width - 2}}|" for line in self.lines]
        return "\n".join([border, *body, border])


# --- guard: quotes for the known units must still be right
def _guard():
    if quote(Parcel(2, "kg")) != 6.6:
        raise RuntimeError("kg quote is broken")
    if quote(Parcel(500, "g"), "80331", Service.EXPRESS) != 20.52:
        raise RuntimeError("gram/zone/service quote is broken")


try:
    _guard()
except Exception as exc:
    raise RuntimeError(f"guard failed: {exc!r}") from exc

# --- the failing quote: an American customer types "lbs"
print(quote(Parcel(4, "lbs"), "10115"))
