"""Isolating between two files or two folders on disk: the inputs read, the oracle built and calibrated on NEW.

For two folders the oracle is the tree oracle (``--entry``, ``--run``,
``--test``, ``--differential``) over prepared copies of OLD
(:mod:`astreduce.isolate.workspace`), or a pytest node (``--node``,
:mod:`astreduce.isolate.node`); the coverage of OLD's and NEW's runs is
measured once (:mod:`astreduce.isolate.coverage`) before the search. For two
files the oracle is a text oracle, built on NEW as ``reduce`` builds it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from astreduce.errors import NotReproducibleError, ReductionStopped, UsageError
from astreduce.file_checks import InputPolicy
from astreduce.files import FileTree, read_source, read_tree
from astreduce.isolate.changes import Granularity
from astreduce.isolate.coverage import Coverage, CoverageRun, measure_coverage
from astreduce.isolate.node import (
    calibrate_node,
    node_files,
    node_oracle,
)
from astreduce.isolate.result import IsolationResult
from astreduce.pytest_node.oracle import node_coverage
from astreduce.reduce.unexecuted import traced
from astreduce.isolate.search import IsolateProgress, isolate, isolate_trees
from astreduce.isolate.workspace import PreparedOracle
from astreduce.oracles import Oracle
from astreduce.oracles.options import OracleOptions, Original, build_oracle, describe_judgement
from astreduce.outcome import Outcome
from astreduce.search.session import StopRequest
from astreduce.search.cluster import Cluster
from astreduce.search.cache import OutcomeStore, default_cache_dir
from astreduce.search.session import Budget


@dataclass(frozen=True)
class IsolateSettings:
    """How an isolation searches, gathered once (the oracle's own options are apart)."""

    granularity: Granularity = "functions"
    jobs: int = 1
    refine: bool = True
    """Minimise the patch on OLD down to single lines (else stop at the granularity)."""
    reexpress: bool = True
    """Try OLD's own lines edited in place toward the patch's NEW lines."""
    coverage: bool = True
    """Measure the lines OLD's and NEW's runs execute, and set aside changes to code neither runs."""
    entry: str | None = None
    node: str | None = None
    """A pytest node id: the oracle (folders only)."""
    max_tests: int | None = None
    max_seconds: float | None = None
    resume: bool = False
    """Keep outcomes in the persistent cache (``--resume``): a rerun answers the tests it ran from disk."""
    cache_dir: str | Path | None = None

    def check(self) -> None:
        if self.jobs < 1:
            raise UsageError("-j must be at least 1")
        Budget.check(self.max_tests, self.max_seconds)

    def budget(self) -> Budget | None:
        """The budget of the whole isolation (it starts now), when one is set."""
        return Budget.of(self.max_tests, self.max_seconds)

    def store(self, identity: str) -> OutcomeStore | None:
        """The persistent outcome cache of ``--resume`` for an oracle of this ``identity``; ``None`` without it."""
        if not self.resume:
            return None
        return OutcomeStore(self.cache_dir or default_cache_dir(), f"{identity}|isolate|{self.granularity}")


def isolate_paths(
    old: Path,
    new: Path,
    options: OracleOptions,
    granularity: Granularity = "functions",
    *,
    jobs: int = 1,
    entry: str | None = None,
    stop: StopRequest | None = None,
    refine: bool = True,
    settings: IsolateSettings | None = None,
    on_progress: Callable[[IsolateProgress], None] | None = None,
    on_note: Callable[[str], None] | None = None,
    cluster: Cluster | None = None,
    reading: InputPolicy = InputPolicy(),
) -> IsolationResult:
    """Isolate between two files or two folders, building the oracle from ``options`` on NEW (read as
    ``reading`` says: the size limit, links in folders).

    ``settings`` (when given) says everything the other keywords say, and more (``--node``, coverage, the budget).

    Raises:
        UsageError: unreadable inputs, a file and a folder, bad options.
        NotReproducibleError: OLD does not pass or NEW does not fail.
        ReductionStopped: stopped (``stop``); ``.result`` holds the passing and failing versions so far.
    """
    if settings is None:
        settings = IsolateSettings(granularity=granularity, jobs=jobs, refine=refine, entry=entry)
    settings.check()
    budget = settings.budget()
    for path in (old, new):
        if not path.exists():
            raise UsageError(f"{path}: no such file or directory")
    if old.is_dir() != new.is_dir():
        raise UsageError(f"{old} and {new}: give two files or two directories, not one of each")
    if settings.node is not None and settings.entry is not None:
        raise UsageError("--node and --entry are two oracles: give one")
    if settings.node is None:
        options.check()
    if old.is_dir():
        return _isolate_folders(old, new, options, settings, stop, budget, on_progress, on_note, cluster, reading)
    if settings.entry is not None:
        raise UsageError("--entry goes with directories; for files the file itself runs")
    if settings.node is not None:
        raise UsageError("--node goes with directories (a project and its tests)")
    old_source, new_source = read_source(old, reading), read_source(new, reading)
    if old_source.text == new_source.text:
        raise UsageError("OLD and NEW are identical: there are no changes to isolate")
    try:
        text_oracle = build_oracle(options, Original(new_source.text, new.name, str(new.resolve().parent), new_source.encode))
    except NotReproducibleError as error:
        reason = str(error).removeprefix("input does not reproduce: ").replace("exception to reduce for", "exception to isolate for")
        raise NotReproducibleError(f"NEW does not fail: {reason}") from None
    store = settings.store(f"{text_oracle.identity}|{new.name}")
    try:
        result = isolate(
            old_source.text, new_source.text, text_oracle, settings.granularity, jobs=settings.jobs, filename=new.name, stop=stop,
            refine=settings.refine, reexpress=settings.reexpress, budget=budget, on_progress=on_progress, store=store,
        )
    except ReductionStopped as stopped:
        stopped.result.patch_name = old.name
        raise
    finally:
        text_oracle.close()
        if store is not None:
            store.close()
    result.patch_name = old.name  # the candidates ran under NEW's name; the patch applies to OLD
    return result


def _isolate_folders(
    old: Path, new: Path, options: OracleOptions, settings: IsolateSettings, stop: StopRequest | None, budget: Budget | None,
    on_progress: Callable[[IsolateProgress], None] | None, on_note: Callable[[str], None] | None, cluster: Cluster | None,
    reading: InputPolicy,
) -> IsolationResult:
    old_tree, new_tree = read_tree(old, reading), read_tree(new, reading)
    oracle: Oracle[FileTree]
    coverage_run: CoverageRun
    notes: Callable[[], list[str]] = list
    if settings.node is not None:
        nodeid, fixed = node_files(settings.node, new_tree, new)
        old_tree, new_tree = {**old_tree, **fixed}, {**new_tree, **fixed}
        pytest_oracle = node_oracle(nodeid, new_tree, new, options, python=options.python, jobs=settings.jobs, on_note=on_note)
        oracle, coverage_run, notes = pytest_oracle, node_coverage(pytest_oracle), lambda: list(pytest_oracle.notes)
        if old_tree == new_tree:
            pytest_oracle.close()
            raise UsageError("OLD and NEW are identical: there are no changes to isolate")
        try:
            calibrate_node(pytest_oracle, new_tree)
        except BaseException:
            pytest_oracle.close()
            raise
    else:
        tree_oracle = PreparedOracle(options, settings.entry)
        if old_tree == new_tree:
            raise UsageError("OLD and NEW are identical: there are no changes to isolate")
        tree_oracle.calibrate(new_tree)
        oracle, coverage_run = tree_oracle, traced(tree_oracle)
    judged: Oracle[FileTree] = oracle
    store = settings.store(oracle.identity)
    try:
        verdict = oracle.judge(old_tree)
        if verdict.outcome is not Outcome.PASS:
            raise NotReproducibleError(f"OLD does not pass: the oracle says {verdict.outcome} ({verdict.run.describe()})")
        coverage = measure_coverage(coverage_run, old_tree, new_tree) if settings.coverage else Coverage(why="--no-coverage")
        if isinstance(oracle, PreparedOracle):
            oracle.prepare(old_tree)
        if cluster is not None:
            judged = cluster.adopt(oracle)
        result = isolate_trees(
            old_tree, new_tree, judged, settings.granularity, jobs=settings.jobs, stop=stop, refine=settings.refine,
            reexpress=settings.reexpress, coverage=coverage, budget=budget, on_progress=on_progress, checked=True, store=store,
        )
    except ReductionStopped as stopped:
        stopped.result.notes = notes()
        raise
    finally:
        if judged is not oracle:
            judged.close()
        oracle.close()
        if store is not None:
            store.close()
    result.notes = notes()
    if not result.target and options.kind != "exec" and settings.node is None:
        result.target = describe_judgement(cast("Oracle[str]", oracle), options)  # what the command oracle looks for
    return result
