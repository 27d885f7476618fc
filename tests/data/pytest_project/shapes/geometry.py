"""Areas and perimeters of plane figures."""

import math
from dataclasses import dataclass


@dataclass
class Rectangle:
    width: float
    height: float

    def area(self):
        return self.width * self.height

    def perimeter(self):
        return 2 * (self.width + self.height)

    def scaled(self, factor):
        return Rectangle(self.width * factor, self.height * factor)


@dataclass
class Circle:
    radius: float

    def area(self):
        return math.pi * self.radius**2

    def perimeter(self):
        return 2 * math.pi * self.radius


def distance(a, b):
    return math.hypot(b[0] - a[0], b[1] - a[1])


def perimeter(points):
    total = 0.0
    for i in range(len(points)):
        total += distance(points[i], points[(i + 1) % len(points)])
    return total


def polygon_area(points):
    """The shoelace formula; the bug: the edge from the last point back to the first is left out."""
    total = 0.0
    for i in range(len(points) - 1):
        x1, y1 = points[i]
        x2, y2 = points[i + 1]
        total += x1 * y2 - x2 * y1
    return abs(total) / 2


def centroid(points):
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return sum(xs) / len(xs), sum(ys) / len(ys)
