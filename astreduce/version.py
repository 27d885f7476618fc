"""Which astreduce this is: the installed distribution's version (every report records it)."""

from __future__ import annotations

from importlib import metadata

try:
    VERSION: str = metadata.version("astreduce")
except metadata.PackageNotFoundError:  # run from a source tree that is not installed
    VERSION = "0.1.0"

__all__ = ["VERSION"]
