"""The search: what to test next, and the one place tests start.

* :mod:`~astreduce.search.session` — the best so far, the outcome cache, counters, progress;
* :mod:`~astreduce.search.scheduler` — runs candidates in the search's order, speculatively
  at ``-j`` > 1, on a pluggable backend;
* :mod:`~astreduce.search.greedy` — searches over one keep-list (greedy chunks, ddmin);
* :mod:`~astreduce.search.strategies` — passes and the strategies that sequence them;
* :mod:`~astreduce.search.cache` — the persistent outcome cache (``--resume``).
"""
