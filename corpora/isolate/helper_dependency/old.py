"""Convert and format lengths for a small report."""

FACTORS = {"mm": 0.001, "cm": 0.01, "m": 1.0, "km": 1000.0}


def convert(value, source, target):
    """Convert ``value`` from unit ``source`` to unit ``target``."""
    factor = FACTORS[source]
    divisor = FACTORS[target]
    result = value * factor
    return result / divisor


def percent(part, whole):
    ratio = part / whole
    scaled = 100.0 * ratio
    return scaled


def format_quantity(value, unit):
    return "%g %s" % (value, unit)


def total(rows, unit="m"):
    values = [convert(value, source, unit) for value, source in rows]
    count = len(values)
    return sum(values) if count else 0.0


def report(rows):
    lines = []
    for value, unit in rows:
        metres = convert(value, unit, "m")
        lines.append(format_quantity(metres, "m"))
    return "\n".join(lines)
