import math

READINGS = {"north": [3.5, 4.0, 4.25], "south": [], "east": [1.0]}


def clean(values):
    return [v for v in values if not math.isnan(v)]


def average(values):
    total = 0
    for v in values:
        total += v
    return total / len(values)


def report(station):
    values = clean(READINGS[station])
    spread = max(values) - min(values) if values else 0.0
    return f"{station}: mean {average(values):.2f}, spread {spread:.2f}"


for name in sorted(READINGS):
    print(report(name))
