"""Convert and format lengths for a small report."""

import math

FACTORS = {"mm": 0.001, "cm": 0.01, "m": 1.0, "km": 1000.0, "in": 0.0254}


def _significant(value, digits):
    """``value`` rounded to ``digits`` decimal places (meant: significant digits)."""
    return round(value, digits)


def convert(value, source, target):
    """Convert ``value`` from unit ``source`` to unit ``target``."""
    if source not in FACTORS:
        raise ValueError("unknown unit: %s" % source)
    factor = FACTORS[source]
    divisor = FACTORS[target]
    result = value * factor
    return result / divisor if divisor else math.inf


def percent(part, whole):
    """``part`` as a percentage of ``whole``."""
    ratio = part / whole if whole else math.nan
    scaled = 100.0 * ratio
    return round(scaled, 6)


def format_quantity(value, unit):
    return "%g %s" % (_significant(value, 3), unit)


def total(rows, unit="m"):
    values = [convert(value, source, unit) for value, source in rows]
    count = len(values)
    return math.fsum(values) if count else 0.0


def report(rows, title=None):
    lines = [title] if title else []
    for value, unit in rows:
        metres = convert(value, unit, "m")
        lines.append(format_quantity(metres, "m"))
    return "\n".join(lines) + "\n"
