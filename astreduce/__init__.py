"""astreduce: shrink a Python program that shows a problem to the smallest one that still shows it.

The public API:

* :func:`reduce_source`, :func:`reduce_file` — reduce a program against an oracle;
* :func:`ddmin`, :func:`delta_debug` — delta debugging over any sequence; a test
  returns an :class:`Outcome` or a bool (True: the failure reproduces);
* :mod:`astreduce.dd` — the delta-debugging package: ``dd``, ``cdd``, ``minimise``, ...
  (calling it, ``astreduce.dd(...)``, still runs ``dd`` as it did when it was the function);
* :class:`DeltaDebugger` — the two-line interface: reduce the arguments of a failing call;
* :func:`slice_run` — the critical slice of a run: the statement executions that cause its outcome;
* :class:`OracleOptions` — the oracle options of the command line, for :func:`reduce_source` and :func:`slice_run`;
* :class:`Outcome`, the errors and ``__version__``.
"""


from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from astreduce import dd  # the subpackage (callable as its dd function, as before)
    from astreduce.dd import DDResult, ddmin
    from astreduce.dd import dd as delta_debug
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
    from astreduce.oracles.options import OracleOptions
    from astreduce.outcome import Outcome
    from astreduce.reduce.single import Result, reduce_file, reduce_source
    from astreduce.slicing import SliceResult, slice_run
    from astreduce.version import VERSION as __version__

#: Where each public name lives, imported on first use (PEP 562): importing one submodule (the fork
#: server's, a worker's) does not load the whole engine.
_PUBLIC = {
    "dd": ("astreduce.dd", None),
    "DDResult": ("astreduce.dd", "DDResult"),
    "ddmin": ("astreduce.dd", "ddmin"),
    "delta_debug": ("astreduce.dd", "dd"),
    "DeltaDebugger": ("astreduce.debugger", "DeltaDebugger"),
    "OracleOptions": ("astreduce.oracles.options", "OracleOptions"),
    "Outcome": ("astreduce.outcome", "Outcome"),
    "Result": ("astreduce.reduce.single", "Result"),
    "reduce_file": ("astreduce.reduce.single", "reduce_file"),
    "reduce_source": ("astreduce.reduce.single", "reduce_source"),
    "SliceResult": ("astreduce.slicing", "SliceResult"),
    "slice_run": ("astreduce.slicing", "slice_run"),
    "__version__": ("astreduce.version", "VERSION"),  # importlib.metadata alone costs 45 ms
    **{
        name: ("astreduce.errors", name)
        for name in (
            "AstReduceError", "DDPreconditionError", "FailureNotReproducedError", "NoCallError", "NotFailingError",
            "NotReproducibleError", "ReductionStopped", "TransformLoadError", "UsageError",
        )
    },
}


def __getattr__(name: str) -> Any:
    try:
        module_name, attribute = _PUBLIC[name]
    except KeyError:
        raise AttributeError(f"module 'astreduce' has no attribute {name!r}") from None
    import importlib

    module = importlib.import_module(module_name)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))


__all__ = [
    "AstReduceError",
    "DDPreconditionError",
    "DDResult",
    "DeltaDebugger",
    "FailureNotReproducedError",
    "NoCallError",
    "NotFailingError",
    "NotReproducibleError",
    "OracleOptions",
    "Outcome",
    "ReductionStopped",
    "Result",
    "SliceResult",
    "TransformLoadError",
    "UsageError",
    "__version__",
    "dd",
    "ddmin",
    "delta_debug",
    "reduce_file",
    "reduce_source",
    "slice_run",
]
