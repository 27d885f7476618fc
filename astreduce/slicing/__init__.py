"""Critical slices of a run (``astreduce slice``): which statement executions cause the outcome.

* :mod:`~astreduce.slicing._child` — the traced child: records a run's
  events, or runs the program skipping some (a script, run by path under the
  program's interpreter);
* :mod:`~astreduce.slicing.runs` — starting the child in a sandbox, judging a
  run, and the oracle over sets of events;
* :mod:`~astreduce.slicing.search` — :func:`slice_run`: the hierarchical
  ddmin (lines, then single executions) through the shared scheduler;
* :mod:`~astreduce.slicing.listing` — the program with the kept executions marked;
* :mod:`~astreduce.slicing.plot` — the run as the paper's Figure 5 draws it.
"""

from astreduce.slicing.search import Level, SliceResult, TestRun, slice_run

__all__ = ["Level", "SliceResult", "TestRun", "slice_run"]
