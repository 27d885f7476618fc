"""
    pint.facets.measurement
    ~~~~~~~~~~~~~~~~~~~~~~~

    Adds pint the capability to handle measurements (quantities with uncertainties).

    :copyright: 2022 by Pint Authors, see AUTHORS for more details.
    :license: BSD, see LICENSE for more details.
"""

from __future__ import annotations

from .objects import Measurement, MeasurementQuantity
from .registry import MeasurementRegistry

__all__ = ["Measurement", "MeasurementQuantity", "MeasurementRegistry"]
