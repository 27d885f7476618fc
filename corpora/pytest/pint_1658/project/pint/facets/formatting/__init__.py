"""
    pint.facets.formatting
    ~~~~~~~~~~~~~~~~~~~~~~

    Adds pint the capability to format quantities and units into string.

    :copyright: 2022 by Pint Authors, see AUTHORS for more details.
    :license: BSD, see LICENSE for more details.
"""

from __future__ import annotations

from .objects import FormattingQuantity, FormattingUnit
from .registry import FormattingRegistry

__all__ = ["FormattingQuantity", "FormattingUnit", "FormattingRegistry"]
