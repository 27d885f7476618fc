"""Delta debugging: ddmin, general dd, CDD, WDD and ProbDD over any sequence, with an outcome cache.

These are pure algorithms: they know nothing of Python source. Strategies in
:mod:`astreduce.search.strategies` apply them to keep-lists of syntax-tree nodes,
lines, characters or tokens.
"""

from astreduce.dd.algorithm import MODES, DDResult, Mode, dd, ddmin
from astreduce.dd.counter import cdd, cdd_search
from astreduce.dd.minimise import ALGORITHMS, minimise
from astreduce.dd.probabilistic import probdd_search
from astreduce.dd.runner import BatchFunction, Progress, ProgressCallback, Runner, TestFunction
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
    "cdd",
    "cdd_search",
    "dd",
    "ddmin",
    "minimise",
    "probdd_search",
]
