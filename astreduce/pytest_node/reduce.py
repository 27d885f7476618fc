"""A failing pytest node, reduced: the project as a tree, the node's failure as the oracle.

The project's files are one tree (:mod:`astreduce.pytest_node.project`):
the node's test file, the project modules it imports and the conftests on
its way are reduced, and (when coverage goes first) every file the node's
run executes or reads (a module imported by name, a data file); every
other file is only kept or deleted. First every
other test of the test file goes at once (one test); then the tree passes
of :mod:`astreduce.reduce.tree` run to their fixpoint: whole files deleted,
modules merged into their only importer, each reduced file reduced while
the others stay fixed. The result is the reduced project: plain pytest,
run in it, fails the same way, and a plain run checks that at the end.
"""

from __future__ import annotations

import ast
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from astreduce.errors import ReductionStopped
from astreduce.files import FileTree
from astreduce.oracles import Oracle
from astreduce.oracles.options import EchoingOracle, RetryingOracle
from astreduce.oracles.tree import encode_tree
from astreduce.pytest_node.oracle import PytestOracle, node_coverage
from astreduce.pytest_node.project import Project
from astreduce.reduce.single import Planning, ReduceConfig, to_stderr
from astreduce.reduce.tree import TreeReducer, guard_tree, resume_store
from astreduce.reduce.tree_result import is_python
from astreduce.reduce.unexecuted import original_coverage, touched
from astreduce.source.origins import Lineage
from astreduce.reduce.tree_result import TreeResult
from astreduce.search.session import StopRequest, ProgressEvent


@dataclass
class PytestResult:
    """The reduced project, and the figures of the whole reduction."""

    project: Project
    failure: str
    """The node's failure, as the plain run of the original showed it."""
    tree: TreeResult
    first_step: bool = False
    """Whether removing every other test of the file at once reproduced."""
    warm: bool = False
    """Whether tests ran forked from a warm pytest."""
    plain_tests: int = 0
    """Tests that ran as plain pytest processes (calibration and the final check included)."""
    notes: list[str] = field(default_factory=list)

    @property
    def files(self) -> dict[str, str]:
        """The reduced project: every file the node still needs."""
        return {**self.project.fixed, **self.tree.tree}

    @property
    def verified(self) -> bool:
        return self.tree.verified

    @property
    def interrupted(self) -> bool:
        return self.tree.interrupted

    def deleted(self) -> list[str]:
        return sorted(p for p in self.project.tree if p not in self.tree.tree)

    def report(self, output: str | None) -> dict[str, Any]:
        """The tree's report (sizes, tests, passes, each file's fate), with the node, the interpreter and the runs."""
        report = self.tree.report(str(self.project.root), output)
        report.update({
            "nodeid": self.project.nodeid,
            "node_failure": self.failure,
            "python": self.project.python,
            "python_origin": self.project.python_origin,
            "reduced_files": sorted(self.project.reduced),
            "deleted": self.deleted(),
            "other_tests_removed_at_once": self.first_step,
            "warm": self.warm,
            "plain_tests": self.plain_tests,
            "notes": self.notes + self.tree.notes,
        })
        return report


def without_other_tests(text: str, test: str) -> str | None:
    """The test file with every other test function and class removed (``test`` is the node's path in the file).

    ``None`` when nothing else is there, or the file does not parse here.
    """
    try:
        module = ast.parse(text)
    except SyntaxError:
        return None
    names = test.split("[", 1)[0].split("::")
    lines = text.splitlines(keepends=True)
    dropped: list[tuple[int, int]] = []

    def other_tests(body: list[ast.stmt], path: list[str]) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                is_test = node.name.startswith("Test" if isinstance(node, ast.ClassDef) else "test")
                if not is_test:
                    continue
                if path and node.name == path[0]:
                    if isinstance(node, ast.ClassDef) and len(path) > 1:
                        other_tests(node.body, path[1:])
                    continue
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                dropped.append((first - 1, node.end_lineno or node.lineno))

    other_tests(module.body, names)
    if not dropped:
        return None
    keep = [True] * len(lines)
    for start, end in dropped:
        for index in range(start, end):
            keep[index] = False
    return "".join(line for line, kept in zip(lines, keep) if kept)


def reduce_pytest_node(
    project: Project,
    config: ReduceConfig,
    *,
    on_improve: Callable[[dict[str, str]], None] | None = None,
    on_progress: Callable[[ProgressEvent], None] | None = None,
    on_note: Callable[[str], None] | None = None,
    stop: StopRequest | None = None,
    warm: bool = True,
    echo: Callable[[str], None] | None = None,
    selective: bool = False,
) -> PytestResult:
    """Reduce ``project`` while its node fails the same way under pytest.

    ``on_improve`` gets every smaller reproducing project (every file the
    node still needs) as soon as it is found; ``on_note`` what the user
    should know while it runs (said once each); ``echo`` how each test ended, with ``config.options.verbose``;
    ``selective``: warm tests import again only what their candidate changed (:mod:`.held`).

    Raises:
        UsageError: pytest missing under the project's interpreter, a node pytest does not find or that passes.
        NotReproducibleError: the node does not fail as a test, or not every time.
        ReductionStopped: interrupted; ``.result`` holds the best so far (a :class:`PytestResult`), verified.
    """
    started = time.monotonic()
    options = replace(config.options, python=project.python)  # its parser reads the files (Planning)
    oracle = PytestOracle(
        project, timeout=options.timeout, jobs=config.jobs, warm=warm, on_note=on_note, limits=options.limits(), match=options.match,
        selective=selective,
    )
    judged: Oracle[FileTree] = oracle if options.retries <= 1 else RetryingOracle(oracle, options.retries)
    config = replace(config, options=options)
    planning = Planning.of(config)
    save = (lambda tree: on_improve({**project.fixed, **tree})) if on_improve is not None else None
    store = None
    try:
        first = oracle.calibrate(project.tree)
        assert oracle.target is not None
        if config.cluster is not None:
            judged = config.cluster.adopt(judged)
        lineage = Lineage(project.tree)
        guarded = guard_tree(judged, config, lineage, planning)
        judged = guarded.oracle
        plan = planning.plan(config, unparsable=judged.traits.unparsable)
        if on_note is not None:
            on_note(f"target: {judged.traits.target}; {guarded.note}")
        if options.verbose > 0:
            judged = EchoingOracle(judged, options.verbose, echo or to_stderr)
        store = resume_store(config, judged)
        trace = node_coverage(oracle)
        # a project's Python files that the test does not import by name (settings, apps) are only reduced once a run
        # shows they execute: coverage is measured whenever there are some
        outside = any(is_python(p, t) for p, t in project.tree.items() if p not in project.reduced)
        executed, said = original_coverage(config.coverage_first, trace, dict(project.tree), by_default=outside)
        reducer = TreeReducer(
            project.tree, judged, plan, strategy=config.strategy, jobs=config.jobs,
            protected=frozenset({project.test_file}), fixed=frozenset(project.tree) - project.reduced - touched(executed),
            store=store, exhaustive=config.exhaustive, budget=config.budget(), keep=config.keep, on_improve=save, on_progress=on_progress,
            stop=stop, lineage=lineage, place=guarded.place, annotate=config.annotate, executed=executed, trace=trace,
        )
        if save is not None:
            save(dict(project.tree))  # from now on the output exists and reproduces, whatever happens
        first_step: list[bool] = []
        tree = reducer.reduce(
            started=started, format=config.format, judge=guarded.judged(oracle.judge_plain),
            first=lambda: first_step.append(_other_tests_at_once(reducer, project)), target=oracle.describe_target(),
        )
    finally:
        judged.close()  # a cluster's copies; the oracle itself too (closing twice is harmless)
        oracle.close()
        planning.close()
        if store is not None:
            store.close()
    result = PytestResult(
        project, first.run.detail or oracle.target.describe(), tree, first_step=any(first_step), warm=oracle.pool is not None,
        plain_tests=oracle.plain_tests, notes=[*oracle.notes, *said],
    )
    if tree.interrupted:
        raise ReductionStopped("interrupted", result)
    return result


def _other_tests_at_once(reducer: TreeReducer, project: Project) -> bool:
    """Remove every other test of the node's file in one candidate; True when that reproduces."""
    text = reducer.best[project.test_file]
    alone = without_other_tests(text, project.test)
    if alone is None:
        return False
    candidate = {**reducer.best, project.test_file: alone}
    if reducer.trees.first_failing([encode_tree(candidate)]) is None:
        return False
    reducer.accept(candidate)
    return True


__all__ = ["PytestResult", "reduce_pytest_node", "without_other_tests"]

