"""A failing pytest test in a project, reduced: ``astreduce pytest NODEID``.

* :mod:`~astreduce.pytest_node.project` — the project read once: the node,
  the interpreter that runs its tests, its files, what the node imports;
* :mod:`~astreduce.pytest_node.oracle` — the pytest oracle: the node's
  failure (phase, exception, message) as the target, each test warm where
  that ends as a plain run does;
* :mod:`~astreduce.pytest_node.zygote` — warm pytest processes, configured
  once and forked for every test (``_zygote.py`` runs under the project's
  interpreter, ``_probe.py`` is the plugin that reports each test's end);
* :mod:`~astreduce.pytest_node.reduce` — the reduction: other tests at
  once, then the tree passes over the project.
"""

from astreduce.pytest_node.oracle import Failure, PytestOracle
from astreduce.pytest_node.project import Project, read_project, split_nodeid
from astreduce.pytest_node.reduce import PytestResult, reduce_pytest_node, without_other_tests

__all__ = [
    "Failure", "Project", "PytestOracle", "PytestResult", "read_project", "reduce_pytest_node", "split_nodeid",
    "without_other_tests",
]
