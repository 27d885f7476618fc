"""The pytest oracle: a candidate tree of the project, judged by running the node under pytest.

A candidate is FAIL when the node fails as it did in the original: the same
node, in the same phase (setup, call, teardown), with the same exception
type and message (addresses and temporary paths made neutral; an
assertion's numbers are the failure, as pytest's rewritten message shows
them). PASS when pytest passes; anything else (another failure, a
collection error, a timeout) is UNRESOLVED.

Each test runs pytest for real, so fixtures, conftest files, assertion
rewriting, plugins and the project's configuration take part as they do
when the user runs the test. It runs *warm* where it can: forked from a
pytest that has started and configured once (:mod:`.zygote`), with the
candidate's files written over its copy of the project. A candidate that
changes what that pytest read while starting (a conftest it imported, the
configuration file) runs *plain*: ``python -m pytest NODE`` in a fresh
copy, as the user would run it. Calibration runs the original both ways
and uses the warm runs only when they end exactly as the plain run does;
the final result is checked by a plain run.
"""

from __future__ import annotations

import json
import os
import re
import threading
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from astreduce.errors import NotReproducibleError, UsageError
from astreduce.files import FileTree, materialise
from astreduce.oracles import Pending, Traits, Verdict
from astreduce.run import Run, frames_from
from astreduce.run.coverage import TRACER_NAME, inline_tracer_text, python_file, python_path_here
from astreduce.run.process import Process, ProcessesPending, Signature, last_line
from astreduce.oracles.options import FLAKINESS_RUNS, OracleOptions, blame_confinement
from astreduce.run.sandbox import MIN_TIMEOUT, CpuBudget, Limits, make_workdir
from astreduce.oracles.signature import neutral
from astreduce.oracles.tree import lines_in
from astreduce.outcome import Outcome
import astreduce.pytest_node._probe as _probe
from astreduce.pytest_node.project import Project
from astreduce.pytest_node.zygote import Answer, Setup, Zygote, ZygotePool, ZygoteStartError

#: The probe plugin's module name, as ``-p`` loads it.
PROBE = "_astreduce_pytest_probe"

#: pytest's exit statuses that mean it found nothing to run (a usage error; no tests collected).
NOT_FOUND_EXITS = (4, 5)


#: How a node's failure may match the original's (``astreduce pytest --match``).
PYTEST_MATCHES = ("type", "first-line", "message")


@dataclass(frozen=True)
class Failure:
    """How a node failed: the phase, the exception's type and its neutral message."""

    nodeid: str
    when: str
    exception: str
    message: str
    frames: tuple[tuple[str, int], ...] = field(default=(), compare=False)
    """Its traceback (files relative to the project), outermost first."""

    @property
    def first_line(self) -> str:
        return self.message.splitlines()[0] if self.message else ""

    def describe(self) -> str:
        first = self.first_line
        return f"{self.nodeid} ({self.when}): {self.exception}: {first}" if first else f"{self.nodeid} ({self.when}): {self.exception}"

    def matches(self, other: Failure, match: str) -> bool:
        """Whether ``other`` is this failure as ``match`` compares them: the same node, phase and exception type, and
        the same message (``message``: all of it, pytest's explanation included), its first line (``first-line``),
        or one that ``regex:PATTERN`` finds (``type``: any)."""
        if (other.nodeid, other.when, other.exception) != (self.nodeid, self.when, self.exception):
            return False
        if match == "type":
            return True
        if match == "first-line":
            return other.first_line == self.first_line
        if match.startswith("regex:"):
            return re.search(match[len("regex:"):], other.message) is not None
        return other.message == self.message


def _failure(record: Mapping[str, Any]) -> Failure:
    return Failure(
        record.get("nodeid", ""), record.get("when", ""), record.get("type", ""), neutral(record.get("message", ""), numbers=False),
        frames_from(dict(record)),
    )


def report_of(stdout: str) -> list[dict[str, str]] | None:
    """The probe's records, from the marked line of a plain pytest run's standard output."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(_probe.REPORT_MARK):
            try:
                failures = json.loads(line[len(_probe.REPORT_MARK):])
            except ValueError:
                return None
            return failures if isinstance(failures, list) else None
    return None


def _pytest_said(text: str) -> str:
    """pytest's own error line (``ERROR: not found: ...``) in a run's output, or ''."""
    for line in text.splitlines():
        if line.startswith(("ERROR:", "E   ")) or "not found:" in line:
            return line.strip()
    return ""


class PytestOracle:
    """Judges a tree of the project's files by running the node under pytest.

    Args:
        project: the project, the node and the interpreter.
        timeout: seconds per test; ``None``: ten times the original's run, at least :data:`MIN_TIMEOUT`.
        jobs: tests run at once (as many warm processes are kept).
        warm: fork tests from a warm pytest where the outcome is the same (see the module docstring).
        selective: let the warm pytest hold the project's modules imported, each test importing again only what
            its candidate changed (:mod:`.held`).
        on_note: called once with each thing the user should know while it runs.
    """

    def __init__(
        self, project: Project, *, timeout: float | None = None, jobs: int = 1, warm: bool = True,
        on_note: Callable[[str], None] | None = None, limits: Limits | None = None, match: str = "first-line",
        warm_plan: tuple[frozenset[str], tuple[str, ...]] | None = None, selective: bool = False,
    ) -> None:
        self.project = project
        self.match = match
        """How a candidate's failure must match the original's (:meth:`Failure.matches`)."""
        self.raised_at: tuple[str, int] | None = None
        """Where the original failed: the innermost frame in a file of the project's tree."""
        self.user_timeout = timeout
        self.timeout = timeout if timeout is not None else 600.0
        self.warm_timeout = self.timeout
        self.cpu = CpuBudget()
        """What a warm test may burn (fed with the CPU of the warm tests that failed as the original did)."""
        self.jobs = jobs
        self.want_warm = warm
        self.on_note = on_note
        self.limits = limits if limits is not None else Limits()
        self.target: Failure | None = None
        self.tests = 0
        self.plain_tests = 0
        self.notes: list[str] = []
        self.pool: ZygotePool | None = None
        self._starting: ZygotePool | None = None
        """The pool being started during calibration (closed with the oracle whatever happens)."""
        self.private = Path(tempfile.mkdtemp(prefix="astreduce-pytest-"))
        probe_dir = self.private / "probe"
        probe_dir.mkdir()
        shutil.copy(Path(_probe.__file__), probe_dir / f"{PROBE}.py")
        self.template = self.private / "template"
        self.template.mkdir()
        materialise(project.fixed, self.template)
        self.args = ("-p", PROBE, project.nodeid)
        path = os.pathsep.join([str(probe_dir), *filter(None, [os.environ.get("PYTHONPATH")])])
        self.env = {**os.environ, "PYTHONPATH": path, "PYTHONDONTWRITEBYTECODE": "1"}
        self.setup = Setup(
            python=project.python, args=self.args, template=self.template, path=(str(probe_dir),),
            preimport=project.imports, limits=self.limits, selective=selective,
        )
        self._said: set[str] = set()
        self.lock = threading.Lock()
        self._warm_plan = warm_plan
        """For an oracle rebuilt elsewhere: the conftests to defer and the modules to import in its warm pytest."""

    @property
    def identity(self) -> str:
        return f"pytest|{self.project.root}|{self.project.nodeid}|{self.project.python}|{self.target}|{self.match}"

    @property
    def traits(self) -> Traits:
        """pytest runs the project as Python under its interpreter; values are not traced in a project."""
        return Traits(
            python=self.project.python, target=self.describe_target() if self.target is not None else "",
            exception=self.target.exception if self.target is not None else "", raised_at=self.raised_at,
        )

    def describe_target(self) -> str:
        """The original's failure, as :attr:`match` compares it."""
        assert self.target is not None
        target = self.target
        if self.match == "type":
            return f"{target.nodeid} ({target.when}): {target.exception}"
        if self.match.startswith("regex:"):
            return f"{target.nodeid} ({target.when}): {target.exception} matching /{self.match[len('regex:'):]}/"
        if self.match == "message" and "\n" in target.message:
            return f"{target.describe()} (and {target.message.count(chr(10))} more lines of pytest's explanation)"
        return target.describe()

    @property
    def warm(self) -> bool:
        return self.pool is not None

    def note(self, text: str) -> None:
        """Say ``text`` once (to ``on_note``) and keep it for the report."""
        if text in self._said:
            return
        self._said.add(text)
        self.notes.append(text)
        if self.on_note is not None:
            self.on_note(text)

    # --- tests ------------------------------------------------------------------------

    def start(self, tree: Mapping[str, str]) -> Pending:
        with self.lock:  # a cluster's worker may run two tests of one oracle at once
            if self._warm_plan is not None:
                self._start_planned_pool(tree)
            zygote = self.pool.acquire(tree) if self.pool is not None else None
            if zygote is None:
                if self.pool is not None:
                    self._say_why_plain(tree)
                return self.start_plain(tree)
            ident = zygote.start(tree, self.warm_timeout, cpu=self.cpu.seconds() if self.user_timeout is None else None)
        return _WarmPending(self, zygote, ident, tree)

    def __reduce__(self) -> tuple[Any, ...]:
        """Travels (to a cluster's worker) as its project and what calibration found; its warm pytest starts there."""
        # a copy re-sent before its warm pytest started (a worker passing it on to another) keeps the plan
        plan = self._warm_plan if self.pool is None else (self.pool.defer, self.pool.setup.preimport)
        return (_rebuilt, (
            self.project, self.user_timeout, self.timeout, self.warm_timeout, self.target, plan, self.limits, self.match, self.raised_at,
        ))

    def _start_planned_pool(self, tree: Mapping[str, str]) -> None:
        """A rebuilt oracle's warm pytest, as calibration chose it elsewhere; plain runs if it cannot start."""
        assert self._warm_plan is not None
        defer, preimport = self._warm_plan
        self._warm_plan = None
        pool = self._starting = ZygotePool(replace(self.setup, preimport=preimport), defer, self.jobs + 1)
        try:
            pool.begin(tree)
            pool.wait_first()
        except (OSError, ZygoteStartError) as error:
            pool.close()
            self.note(f"tests run as plain pytest processes: the warm pytest could not start ({error})")
            return
        self.pool = pool

    def _say_why_plain(self, tree: Mapping[str, str]) -> None:
        assert self.pool is not None
        changed = [p for p in self.pool.inputs if tree.get(p) != self.project.tree.get(p, self.project.fixed.get(p))]
        if changed:
            self.note(
                f"a candidate changes {changed[0]}, which the warm pytest read while starting: "
                "such candidates run as plain pytest processes (a new warm pytest starts when one is kept)"
            )

    def start_plain(self, tree: Mapping[str, str]) -> Pending:
        """``python -m pytest NODE`` in a fresh copy of the project holding ``tree``."""
        workdir = make_workdir()
        shutil.copytree(self.template, workdir, symlinks=True, dirs_exist_ok=True)
        materialise(tree, workdir)
        for path, mode in self.project.modes.items():
            if path in tree and mode & 0o111:
                os.chmod(Path(workdir) / path, mode & 0o7777)
        argv = [self.project.python, "-m", "pytest", *self.args, "-o", f"cache_dir={workdir}/.astreduce-cache"]
        try:
            process = Process(argv, workdir, self.timeout, self.limits.for_timeout(self.timeout), None, False, env=self.env)
        except OSError as error:
            raise UsageError(f"cannot run {self.project.python}: {error.strerror}") from None
        return _PlainPending(self, process, tree)

    def judge(self, tree: Mapping[str, str]) -> Verdict:
        return self.start(tree).wait()

    def warm_coverage(self, tree: Mapping[str, str]) -> dict[str, list[int]] | None:
        """The lines of the project's files a warm test of ``tree`` executes, by path (the files the warm pytest
        read while starting too, with no line); None when no warm test can tell: no warm pytest for this tree, one
        that holds the project's modules, or one that ran Python files of the tree before the fork (their lines
        would be missing), or a traced test that did not end."""
        with self.lock:
            pool = self.pool
            if pool is None or pool.setup.selective or any(p in tree and python_file(p) for p in pool.inputs):
                return None
            zygote = pool.acquire(tree)
            if zygote is None:
                return None
            ident = zygote.start(tree, self.timeout, trace=inline_tracer_text())
        answer = zygote.wait(ident, self.timeout)
        with self.lock:
            pool.release(zygote, answer)
        if answer.ending != "ok" or answer.lines is None:
            return None
        return {**{p: [] for p in pool.inputs if p in tree}, **answer.lines}

    def judge_plain(self, tree: Mapping[str, str]) -> Verdict:
        return self.start_plain(tree).wait()

    def classify(self, failures: list[dict[str, Any]] | None, exit_code: int | None, run: Run, tree: Mapping[str, str]) -> Verdict:
        """FAIL when the target node failed as the original did; PASS when pytest passed; else UNRESOLVED."""
        self.tests += 1
        if failures is None:
            return Verdict(Outcome.UNRESOLVED, run)
        seen = [_failure(f) for f in failures]
        mine = [f for f in seen if self.target is None or f.nodeid == self.target.nodeid]
        target = self.target
        matching = [f for f in mine if target is not None and target.matches(f, self.match)]
        broken = [f for f in seen if f.when == "collect" and f.exception]  # a module that raised as it was imported
        shown = matching[0] if matching else mine[0] if mine else broken[0] if broken else None
        if shown is not None:
            run = Run(
                "exception", shown.exception, shown.message, detail=shown.describe(), seconds=run.seconds, frames=shown.frames,
            ).located(lines_in(tree))
        if matching:
            return Verdict(Outcome.FAIL, run)
        if exit_code == 0 and not seen:
            return Verdict(Outcome.PASS, Run("ok", seconds=run.seconds))
        said = mine or broken or exit_code is None
        return Verdict(Outcome.UNRESOLVED, run if said else Run("exception", f"pytest exit {exit_code}", seconds=run.seconds, detail=run.detail))

    # --- calibration --------------------------------------------------------------------

    def calibrate(self, tree: Mapping[str, str]) -> Verdict:
        """Run the original plain (its failure becomes the target), then warm, then again for flakiness.

        Raises:
            UsageError: pytest missing under the interpreter, a node pytest does not find, a node that passes.
            NotReproducibleError: the node does not fail as a test, or not every time.
        """
        pool = self._start_first(tree)
        plain = self._calibrate_plain(tree)
        if self.user_timeout is None:
            self.timeout = max(MIN_TIMEOUT, 10 * plain.run.seconds)
        self.warm_timeout = self.timeout
        if pool is not None:
            self._adopt_warm(pool, tree)
        slowest = 0.0
        for _ in range(FLAKINESS_RUNS - 1):
            again = self.judge(tree)
            if again.outcome is not Outcome.FAIL:
                raise NotReproducibleError(
                    f"{self.project.nodeid} does not fail the same way every time: a run gave {again.outcome} ({again.run.detail or again.run.describe()})"
                )
            slowest = max(slowest, again.run.seconds)
        if self.pool is not None and self.user_timeout is None:
            self.warm_timeout = max(MIN_TIMEOUT, 10 * slowest)  # the learning run imported what these did not
        return plain

    def _start_first(self, tree: Mapping[str, str], defer: bool = True) -> ZygotePool | None:
        """Start the first warm pytest (it starts while the plain run runs); None when not wanted."""
        if not self.want_warm:
            return None
        deferred = frozenset(p for p in deferrable_conftests(tree) if p in self.project.reduced) if defer else frozenset()
        pool = self._starting = ZygotePool(self.setup, deferred, self.jobs + 1)
        try:
            pool.begin(tree)
        except OSError as error:
            raise UsageError(f"cannot run {self.project.python}: {error.strerror}") from None
        return pool

    def _calibrate_plain(self, tree: Mapping[str, str]) -> Verdict:
        try:
            return self._run_original(tree)
        except NotReproducibleError as error:
            options = OracleOptions(confine=self.limits.confine, allow_write=self.limits.writable, allow_network=self.limits.network)
            raise blame_confinement(options, error) from None

    def _run_original(self, tree: Mapping[str, str]) -> Verdict:
        pending = self.start_plain(tree)
        assert isinstance(pending, _PlainPending)
        signature = pending.process.wait()
        self.plain_tests += 1
        failures = None if signature.timed_out else report_of(signature.stdout)
        nodeid = self.project.nodeid
        if failures is None:
            said = _pytest_said(signature.stderr) or signature.describe()
            if "No module named pytest" in signature.stderr:
                raise UsageError(f"pytest is not installed under {self.project.python}: install it there, or name another interpreter with --python")
            raise NotReproducibleError(f"pytest did not run {nodeid}: {said}")
        mine = [_failure(f) for f in failures if f.get("nodeid") == nodeid]
        calls = [f for f in mine if f.when != "collect"]
        if calls:
            self.target = calls[0]
            self.tests += 1
            run = Run(
                "exception", self.target.exception, self.target.message, detail=self.target.describe(), seconds=signature.seconds,
                frames=self.target.frames,
            ).located(lines_in(tree))
            self.raised_at = run.raised_at
            return Verdict(Outcome.FAIL, run)
        collected = [_failure(f) for f in failures if f.get("when") == "collect"]
        if collected:
            raise NotReproducibleError(f"pytest could not collect {collected[0].nodeid or nodeid}: {last_line(failures[-1].get('message', ''))}")
        if signature.exit_code in NOT_FOUND_EXITS:
            said = _pytest_said(signature.stdout + "\n" + signature.stderr).replace(pending.process.workdir + os.sep, "")
            raise UsageError(f"pytest finds no test {nodeid} in {self.project.root}" + (f" ({said})" if said else ""))
        if signature.exit_code == 0:
            raise UsageError(f"{nodeid} does not fail: it passes under pytest")
        raise NotReproducibleError(f"{nodeid} did not fail as a test: pytest exit status {signature.exit_code}")

    def _adopt_warm(self, pool: ZygotePool, tree: Mapping[str, str]) -> None:
        """Use warm runs when the original fails warm exactly as it fails plain; say why not otherwise."""
        try:
            pool.wait_first()
        except ZygoteStartError as error:
            pool.close()
            if error.kind == "pytest":
                raise UsageError(f"pytest is not installed under {self.project.python}: install it there, or name another interpreter with --python") from None
            self.note(f"tests run as plain pytest processes: the warm pytest could not start ({last_line(error.detail)})")
            return
        self.pool = pool
        zygote = pool.acquire(tree)
        assert zygote is not None
        started = time.monotonic()
        pending = _WarmPending(self, zygote, zygote.start(tree, self.timeout, learn=True), tree)
        warm = pending.wait()
        seconds = time.monotonic() - started
        pool.learned(pending.modules)
        self.tests -= 1  # the original once more, another way: not a test of the search
        if warm.outcome is Outcome.FAIL:
            self.warm_timeout = self.user_timeout if self.user_timeout is not None else max(MIN_TIMEOUT, 10 * seconds)
            return
        pool.close()
        self.pool = None
        if pool.defer:  # the conftests may need the early start after all: import them in the warm pytest
            retry = self._start_first(tree, defer=False)
            if retry is not None:
                self._adopt_warm(retry, tree)
            return
        self.note(f"tests run as plain pytest processes: a warm run of the original ended otherwise ({warm.run.detail or warm.run.describe()})")

    def close(self) -> None:
        for pool in (self.pool, self._starting):
            if pool is not None:
                pool.close()
        shutil.rmtree(self.private, ignore_errors=True)


def _rebuilt(
    project: Project, user_timeout: float | None, timeout: float, warm_timeout: float, target: Failure | None,
    plan: tuple[frozenset[str], tuple[str, ...]] | None, limits: Limits, match: str, raised_at: tuple[str, int] | None,
) -> PytestOracle:
    """A calibrated :class:`PytestOracle` made again from what :meth:`PytestOracle.__reduce__` sends."""
    oracle = PytestOracle(project, timeout=user_timeout, warm=plan is not None, limits=limits, match=match, warm_plan=plan)
    oracle.timeout, oracle.warm_timeout, oracle.target, oracle.raised_at = timeout, warm_timeout, target, raised_at
    return oracle


def deferrable_conftests(tree: Mapping[str, str]) -> list[str]:
    """The conftests a forked child can import itself: those that define none of pytest's early hooks."""
    from astreduce.pytest_node._zygote import EARLY_HOOKS

    found = []
    for path, text in tree.items():
        if path.rsplit("/", 1)[-1] != "conftest.py":
            continue
        names = _top_level_names(text)
        if names is not None and not names & set(EARLY_HOOKS):
            found.append(path)
    return found


def _top_level_names(text: str) -> set[str] | None:
    import ast

    from astreduce.source.imports import parse_module

    module = parse_module(text)
    if module is None:
        return None
    names: set[str] = set()
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


class _PlainPending(ProcessesPending):
    """A ``python -m pytest`` process; its probe's records come on standard output."""

    def __init__(self, oracle: PytestOracle, process: Process, tree: Mapping[str, str]) -> None:
        super().__init__([process])
        self.oracle = oracle
        self.process = process
        self.tree = tree

    def wait(self) -> Verdict:
        signature: Signature = self.process.wait()
        self.oracle.plain_tests += 1
        failures = None if signature.timed_out else report_of(signature.stdout)
        return self.oracle.classify(failures, signature.exit_code, signature.to_run(), self.tree)


class _WarmPending:
    """A test forked from a warm pytest; a zygote that dies takes its test to a plain run."""

    def __init__(self, oracle: PytestOracle, zygote: Zygote, ident: int, tree: Mapping[str, str]) -> None:
        self.oracle = oracle
        self.zygote = zygote
        self.ident = ident
        self.tree = tree
        self._answer: Answer | None = None
        self.modules: list[str] = []

    def done(self) -> bool:
        if self._answer is None:
            self._answer = self.zygote.answer(self.ident)
        return self._answer is not None

    def ready_fds(self) -> list[int] | None:
        return [] if self.done() else [self.zygote.fd]

    def cancel(self) -> None:
        if self._answer is None:
            self.zygote.cancel(self.ident)

    def wait(self) -> Verdict:
        answer = self._answer or self.zygote.wait(self.ident, self.oracle.warm_timeout)
        self.modules = answer.modules
        pool = self.oracle.pool
        if pool is not None:
            with self.oracle.lock:
                pool.release(self.zygote, answer)
        held = self.zygote.held
        if answer.unsafe and held is not None:
            self.oracle.note(
                f"importing a changed module again changed the state of {', '.join(answer.unsafe)}, which a warm test kept "
                "imported: it is imported again with that module from now on" if not held.off else
                "importing changed modules again kept changing the state of the modules held: every test imports the whole project from now on"
            )
            if held.off and pool is not None:
                with self.oracle.lock:
                    pool.stop_holding()
            return self.oracle.start(self.tree).wait()  # with what it changed dropped too
        if held is not None and held.off and self.zygote.hold_error:
            self.oracle.note(f"the warm pytest holds none of the project's modules: {self.zygote.hold_error}")
        if answer.ending in ("lost", "unstarted"):
            if answer.ending == "lost":
                self.oracle.note(f"a warm pytest process ended ({answer.detail}); its test ran as a plain process")
            return self.oracle.start_plain(self.tree).wait()
        if answer.ending == "ok":
            run = Run("ok", seconds=answer.seconds, cpu=answer.cpu)
            verdict = self.oracle.classify(answer.failures, answer.exit, run, self.tree)
            if verdict.outcome is Outcome.FAIL:
                self.oracle.cpu.failed_in(run.spent)
            return verdict
        ending = "timeout" if answer.ending == "timeout" else "crash"
        run = Run(ending, seconds=answer.seconds, detail=answer.detail or answer.ending)
        collected = [f for f in answer.failures or [] if f.get("when") == "collect"]  # pytest then stopped: say why
        verdict = self.oracle.classify(collected or None, None, run, self.tree)
        return Verdict(Outcome.UNRESOLVED, verdict.run)  # whatever was recorded, the session did not end


def node_coverage(oracle: PytestOracle) -> Callable[[FileTree, str], None]:
    """How the node's coverage runs (:mod:`~astreduce.run.coverage`): a warm test with the tracer started in its
    child where one can tell (:meth:`PytestOracle.warm_coverage`: on pint reduced, 0.4 to 2 s against ~10 s for a
    plain run, which imports pytest, numpy and pandas under the tracer), else one plain ``python -m pytest NODE`` on the tree,
    its folder writable."""

    def run(tree: FileTree, folder: str) -> None:
        lines = oracle.warm_coverage({p: t for p, t in tree.items() if p != TRACER_NAME})
        if lines is not None:
            (Path(folder) / "warm.json").write_text(json.dumps(lines), encoding="utf-8")
            return
        limits = replace(oracle.limits, writable=(*oracle.limits.writable, folder))
        with python_path_here():
            plain = PytestOracle(oracle.project, timeout=oracle.timeout, warm=False, limits=limits, match=oracle.match)
        try:
            plain.judge_plain(tree)
        finally:
            plain.close()

    return run
