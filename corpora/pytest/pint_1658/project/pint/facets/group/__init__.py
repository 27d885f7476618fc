"""
    pint.facets.group
    ~~~~~~~~~~~~~~~~~

    Adds pint the capability to group units.

    :copyright: 2022 by Pint Authors, see AUTHORS for more details.
    :license: BSD, see LICENSE for more details.
"""

from __future__ import annotations

from .definitions import GroupDefinition
from .objects import Group
from .registry import GroupRegistry

__all__ = ["GroupDefinition", "Group", "GroupRegistry"]
