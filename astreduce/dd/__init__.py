"""Delta debugging: ddmin, general dd, CDD, WDD and ProbDD over any sequence, with an outcome cache.

These are pure algorithms: they know nothing of Python source. Strategies in
:mod:`astreduce.search.strategies` apply them to keep-lists of syntax-tree nodes,
lines, characters or tokens.

A test function maps a candidate (of the input's type) to an :class:`Outcome`,
or to a bool: True (the failure reproduces) is FAIL, False is PASS.

``astreduce.dd`` is this package; the general algorithm is :func:`dd` in it
(``astreduce.dd.dd``, also ``astreduce.delta_debug``). For code written when
``astreduce.dd`` was that function, calling the package calls it:
``astreduce.dd(elements, test, mode="+-")`` still works.
"""

import sys
import types
from typing import Any

from astreduce.dd.algorithm import MODES, DDResult, Mode, dd, ddmin
from astreduce.dd.counter import cdd, cdd_search
from astreduce.dd.minimise import ALGORITHMS, minimise
from astreduce.dd.probabilistic import probdd_search
from astreduce.dd.runner import (
    BatchFunction,
    Progress,
    ProgressCallback,
    Runner,
    TestFunction,
    as_outcome,
)
from astreduce.outcome import Outcome

__all__ = [
    "ALGORITHMS",
    "MODES",
    "BatchFunction",
    "DDResult",
    "Mode",
    "Outcome",
    "Progress",
    "ProgressCallback",
    "Runner",
    "TestFunction",
    "as_outcome",
    "cdd",
    "cdd_search",
    "dd",
    "ddmin",
    "minimise",
    "probdd_search",
]


class _CallablePackage(types.ModuleType):
    """This package, callable as :func:`dd`: ``astreduce.dd(...)`` keeps working."""

    def __call__(self, *args: Any, **kwargs: Any) -> DDResult[Any]:
        return dd(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
