"""astreduce: shrink a Python program that shows a problem to the smallest one that still shows it.

The public API:

* :func:`reduce_source`, :func:`reduce_file` — reduce a program against an oracle;
* :func:`ddmin`, :func:`dd` — delta debugging over any sequence;
* :class:`DeltaDebugger` — the two-line interface: reduce the arguments of a failing call;
* :func:`slice_run` — the critical slice of a run: the statement executions that cause its outcome;
* :class:`Outcome` and the errors.
"""

from astreduce.dd import DDResult, dd, ddmin
from astreduce.debugger import DeltaDebugger
from astreduce.errors import (
    AstReduceError,
    DDPreconditionError,
    FailureNotReproducedError,
    NoCallError,
    NotFailingError,
    NotReproducibleError,
    ReductionStopped,
    TransformLoadError,
    UsageError,
)
from astreduce.outcome import Outcome
from astreduce.reduce.single import Result, reduce_file, reduce_source
from astreduce.slicing import SliceResult, slice_run

__all__ = [
    "AstReduceError",
    "DDPreconditionError",
    "DDResult",
    "DeltaDebugger",
    "FailureNotReproducedError",
    "NoCallError",
    "NotFailingError",
    "NotReproducibleError",
    "Outcome",
    "ReductionStopped",
    "Result",
    "SliceResult",
    "TransformLoadError",
    "UsageError",
    "dd",
    "ddmin",
    "reduce_file",
    "reduce_source",
    "slice_run",
]
