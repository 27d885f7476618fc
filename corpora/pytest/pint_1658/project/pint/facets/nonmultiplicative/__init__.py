"""
    pint.facets.nonmultiplicative
    ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~

    Adds pint the capability to handle nonmultiplicative units:
    - offset
    - logarithmic

    :copyright: 2022 by Pint Authors, see AUTHORS for more details.
    :license: BSD, see LICENSE for more details.
"""

from __future__ import annotations

# This import register LogarithmicConverter and OffsetConverter to be usable
# (via subclassing)
from .definitions import LogarithmicConverter, OffsetConverter  # noqa: F401
from .registry import NonMultiplicativeRegistry

__all__ = [
    "NonMultiplicativeRegistry",
]
