"""Delta debugging: ddmin and general dd over any sequence, with an outcome cache.

These are pure algorithms: they know nothing of Python source. Strategies in
:mod:`astreduce.search.strategies` apply them to keep-lists of syntax-tree nodes,
lines, characters or tokens.
"""

from astreduce.dd.algorithm import MODES, DDResult, Mode, dd, ddmin
from astreduce.dd.runner import BatchFunction, Progress, ProgressCallback, Runner, TestFunction
from astreduce.outcome import Outcome

__all__ = [
    "MODES",
    "BatchFunction",
    "DDResult",
    "Mode",
    "Outcome",
    "Progress",
    "ProgressCallback",
    "Runner",
    "TestFunction",
    "dd",
    "ddmin",
]
