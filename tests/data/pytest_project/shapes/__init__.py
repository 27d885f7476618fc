"""A small geometry package with one bug, for ``astreduce pytest``."""

from shapes.geometry import Circle, Rectangle, polygon_area, perimeter

__all__ = ["Circle", "Rectangle", "perimeter", "polygon_area"]
