import math

import pytest

from shapes import Circle, Rectangle, perimeter, polygon_area
from shapes.geometry import centroid, distance

SQUARE = [(0, 0), (2, 0), (2, 2), (0, 2)]


@pytest.fixture
def unit_square():
    return [(0, 0), (1, 0), (1, 1), (0, 1)]


def test_rectangle_area():
    assert Rectangle(2, 3).area() == 6


def test_rectangle_scaled():
    big = Rectangle(1, 2).scaled(3)
    assert (big.width, big.height) == (3, 6)
    assert big.perimeter() == 18


def test_circle():
    c = Circle(1)
    assert math.isclose(c.area(), math.pi)
    assert math.isclose(c.perimeter(), 2 * math.pi)


def test_distance():
    assert distance((0, 0), (3, 4)) == 5


@pytest.mark.parametrize("points, expected", [(SQUARE, 8.0), ([(0, 0), (3, 0), (0, 4)], 12.0)])
def test_perimeter(points, expected):
    assert perimeter(points) == expected


def test_centroid(unit_square):
    assert centroid(unit_square) == (0.5, 0.5)


class TestPolygonArea:
    def test_triangle_is_half_the_box(self):
        triangle = [(0, 0), (4, 0), (0, 3)]
        box = Rectangle(4, 3)
        assert polygon_area(triangle) == box.area() / 2

    def test_square_away_from_the_origin(self):
        moved = [(x + 1, y + 1) for x, y in SQUARE]
        assert polygon_area(moved) == Rectangle(2, 2).area()

    def test_empty(self):
        assert polygon_area([]) == 0
