"""How a calibrated oracle travels to another process (a Dask worker) and is made again there.

A recipe is the oracle's class and its settings, never its live parts (a
forked child waiting, started processes, counters): each worker rebuilds the
oracle from it and keeps it for its next tests. Knowing how each kind of
oracle is built is the oracles' business, so it lives here, not in the
cluster that ships it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

from astreduce.oracles import Oracle
from astreduce.oracles.options import RetryingOracle

#: An oracle's dataclass fields that hold counters or live resources: never shipped.
_LIVE_FIELDS = frozenset({"tests", "seconds", "workers"})


@dataclass(frozen=True)
class Recipe:
    """How to rebuild a calibrated oracle on a worker: its class and settings, without live parts."""

    kind: type | None
    """The oracle's class; ``None``: ``settings["oracle"]`` is the oracle itself, shipped as it is."""
    settings: dict[str, Any]
    inner: Recipe | None = None
    """The wrapped oracle's recipe (``--retries``)."""
    token: str = field(default_factory=lambda: uuid.uuid4().hex)
    """Names this oracle on the workers, where each keeps its rebuilt copies."""


def recipe_of(oracle: object) -> Recipe:
    """The recipe of a calibrated oracle.

    A dataclass oracle (exec, command, predicate) travels as its class and
    its init fields, less counters and live resources (private fields, a
    worker list); ``--retries`` as its inner oracle's recipe; any other
    oracle (one handed to the API) as it is, so it must pickle.
    """
    if isinstance(oracle, RetryingOracle):
        return Recipe(RetryingOracle, {"retries": oracle.retries}, inner=recipe_of(oracle.inner))
    if is_dataclass(oracle) and not isinstance(oracle, type):
        settings = {
            f.name: getattr(oracle, f.name)
            for f in fields(oracle)
            if f.init and not f.name.startswith("_") and f.name not in _LIVE_FIELDS
        }
        return Recipe(type(oracle), settings)
    return Recipe(None, {"oracle": oracle})


def rebuild(recipe: Recipe) -> Oracle[str]:
    """A fresh oracle from ``recipe``, ready to test (its children start with its first test)."""
    if recipe.kind is RetryingOracle:
        assert recipe.inner is not None
        return RetryingOracle(rebuild(recipe.inner), **recipe.settings)
    if recipe.kind is None:
        oracle: Oracle[str] = recipe.settings["oracle"]
        return oracle
    built: Oracle[str] = recipe.kind(**recipe.settings)
    return built


__all__ = ["Recipe", "rebuild", "recipe_of"]
