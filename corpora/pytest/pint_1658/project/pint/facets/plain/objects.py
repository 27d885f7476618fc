"""
    pint.facets.plain.objects
    ~~~~~~~~~~~~~~~~~~~~~~~~

    :copyright: 2022 by Pint Authors, see AUTHORS for more details.
    :license: BSD, see LICENSE for more details.
"""

from __future__ import annotations

from .quantity import PlainQuantity
from .unit import PlainUnit, UnitsContainer

__all__ = [PlainUnit, PlainQuantity, UnitsContainer]
