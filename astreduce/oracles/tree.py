"""The oracle of a tree of files: a candidate tree, judged in a fresh copy of it.

:class:`DirectoryOracle` materialises a tree in a sandbox folder and runs
``--entry`` there (the entry file runs as ``__main__`` with the copy's folder
first on ``sys.path``, its exception matched as the exec oracle matches it)
or the command (``--run`` with ``{dir}``, ``{file}`` and ``{python}``,
``--test`` with the copy's folder as its argument, ``--differential``).
``astreduce isolate`` judges its versions with it. Its messages name the
original and the job as the :class:`~astreduce.oracles.options.Wording` it
is built with says: NEW for isolate, the *input* for a reduction.

:class:`TreeOracle` is the multi-file reducer's: the same oracle, with two
differences that reducing needs:

* the copy keeps each file's mode, so a script in the tree that ``--run``
  starts (``./build.sh``) stays executable, and a candidate that lacks the
  script it runs is UNRESOLVED rather than astreduce's own error;
* calibration runs the original three times to catch a flaky oracle, and
  reports every run, as the single-file reducer does.

Three adapters (:class:`Adapter`: convert a candidate, then judge it) are
all that stands between texts and trees: :class:`FileOracle` sees a text oracle as a tree oracle for one file (isolate
of two files), :class:`FileInTree` judges one file's text with the rest of
the tree fixed, and :func:`encode_tree` / :class:`EncodedTree` turn a whole
tree into one text and back, for the session's passes over whole files.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Generic, TypeVar

from astreduce.errors import NotReproducibleError, UsageError
from astreduce.files import FileTree, materialise
from astreduce.interpreters import require_worker_python, resolve_python, version_of
from astreduce.oracles import Finished, Oracle, Pending, Target, Traits, Verdict
from astreduce.run import Run, frames_from, frames_in_text
from astreduce.run._worker_main import REPORT_MARK
from astreduce.oracles.command import CommandOracle, JobPending, command_argv, forked_signature, script_argv
from astreduce.run.process import Process, ProcessesPending, Signature
from astreduce.run.forked_tree import ForkedTree, preload_imports
from astreduce.oracles.options import (
    FLAKINESS_RUNS,
    ISOLATING,
    OracleOptions,
    Wording,
    no_exception,
    original_runs,
    require_reliable,
)
from astreduce.run.sandbox import (
    MIN_TIMEOUT,
    CpuBudget,
    Limits,
    make_workdir,
    remove_workdir,
)
from astreduce.run.spare import Job
from astreduce.run.trace import TreeTracer
from astreduce.run.worker import WORKER_SCRIPT
from astreduce.outcome import Outcome

#: An adapter's candidates, and its inner oracle's.
C = TypeVar("C")
W = TypeVar("W")


class Adapter(ABC, Generic[C, W]):
    """An oracle over one kind of candidate made of an oracle over another: each candidate is
    converted (:meth:`convert`) and judged by ``oracle``, whose owner closes it (:meth:`close`
    leaves it open). The three adapters below are all that stands between texts and trees."""

    def __init__(self, oracle: Oracle[W]) -> None:
        self.oracle = oracle

    @abstractmethod
    def convert(self, candidate: C) -> W: ...

    @property
    def identity(self) -> str:
        return self.oracle.identity

    @property
    def traits(self) -> Traits:
        return self.oracle.traits

    def calibrate(self, candidate: C) -> Verdict:
        return self.oracle.calibrate(self.convert(candidate))

    def judge(self, candidate: C) -> Verdict:
        return self.oracle.judge(self.convert(candidate))

    def start(self, candidate: C) -> Pending:
        return self.oracle.start(self.convert(candidate))

    def close(self) -> None:
        """The inner oracle belongs to whoever made it (a reduction, isolate): it stays open."""


class FileOracle(Adapter[Mapping[str, str], str]):
    """A text :class:`~astreduce.oracles.Oracle` seen as a tree oracle for one file."""

    def __init__(self, oracle: Oracle[str], name: str) -> None:
        super().__init__(oracle)
        self.name = name

    def convert(self, tree: Mapping[str, str]) -> str:
        return tree[self.name]

    @property
    def traits(self) -> Traits:
        return self.oracle.traits.passed_on(one_file=(self.name, self.oracle))


def _run_from(signature: Signature) -> Run:
    """The run that the entry runner (``_worker_main.py --entry``) reported on the last marked line."""
    for line in reversed(signature.stdout.splitlines()):
        if line.startswith(REPORT_MARK):
            try:
                report = json.loads(line[len(REPORT_MARK) :])
                return Run(
                    report["ending"],
                    exception=report.get("exception", ""),
                    message=report.get("message", ""),
                    frame=report.get("frame", ""),
                    seconds=signature.seconds,
                    frames=frames_from(report),
                )
            except (ValueError, KeyError):
                break
    if signature.timed_out:
        return Run("timeout", seconds=signature.seconds, detail="timed out")
    return Run("crash", seconds=signature.seconds, detail=signature.describe() + " without a report")


def lines_in(tree: Mapping[str, str]) -> Callable[[str], int | None]:
    """How many lines a file of ``tree`` has, by its path (None: not a file of it): what :meth:`Run.located` asks."""
    return lambda path: tree[path].count("\n") + 1 if path in tree else None


class _TreePending(ProcessesPending):
    """A tree's test: each process waits out the timeout it started with."""

    def __init__(self, oracle: DirectoryOracle, processes: list[Process], tree: Mapping[str, str]) -> None:
        super().__init__(processes)
        self.oracle = oracle
        self.tree = tree

    def wait(self) -> Verdict:
        signatures = [p.wait() for p in self.processes]
        self.oracle.tests += 1
        verdict = self.oracle.classify(signatures)
        first = self.processes[0]
        run = verdict.run if verdict.run.frames or self.oracle.command is None else replace(
            verdict.run, frames=frames_in_text(signatures[0].stderr)
        )
        return Verdict(verdict.outcome, run.located(lines_in(self.tree), first.workdir))


@dataclass
class DirectoryOracle:
    """Judges a tree: materialised in a sandbox folder, run with ``--entry`` or a command there.

    Args:
        options: the oracle options; ``--append``, ``--stdin`` and ``--retries`` do not apply.
        entry: the file to run, relative to the tree; required for the exec oracle.
        wording: how checks and calibration name the original and the job.
    """

    options: OracleOptions
    entry: str | None = None
    wording: Wording = ISOLATING
    limits: Limits = field(default_factory=Limits)
    timeout: float = 600.0
    target: Target | None = None
    command: CommandOracle | None = None
    tests: int = 0
    raised_at: tuple[str, int] | None = field(default=None, init=False, compare=False)
    """Where the original failed (:attr:`Traits.raised_at`), set by calibration."""

    def __post_init__(self) -> None:
        options = self.options
        options.check_tree(self.entry, self.wording)
        self.python = resolve_python(options.python)
        self.limits = replace(self.limits, confine=options.confine, writable=tuple(options.allow_write), network=options.allow_network)
        # a calibrated oracle rebuilt from its recipe on a cluster's worker keeps its target and command
        if not options.runs_commands:  # the entry runs as a program, its exception matched
            require_worker_python(self.python, options.python)
            if options.expect and self.target is None:
                self.target = Target.parse(options.expect, options.match)
        elif self.command is None:
            self.command = options.command_oracle(self.python)

    @property
    def identity(self) -> str:
        return f"tree|{self.entry}|{self.command.identity if self.command else self.target}"

    @property
    def traits(self) -> Traits:
        """Under the exec oracle the entry runs as Python under :attr:`python`; a command's traits otherwise.
        A file's values are traced by running the entry (:func:`entry_tracer`), not
        by a tracer of one text."""
        if self.command is not None:
            return self.command.traits.passed_on(raised_at=self.raised_at)
        target = self.target
        return Traits(
            python=self.python, target=target.describe() if target is not None else "", exception=target.exception if target is not None else "",
            raised_at=self.raised_at,
        )

    def start(self, tree: Mapping[str, str]) -> Pending:
        timeout = self.command.wait_limit if self.command is not None else self.timeout
        limits = self.limits.for_timeout(timeout)
        processes = []
        if self.command is None:
            assert self.entry is not None
            commands = [""]
        else:
            commands = self.command.commands
        for command in commands:
            workdir = make_workdir()
            self.lay_out(tree, workdir)
            argv, shell = self.argv(command, workdir)
            processes.append(Process(argv, workdir, timeout, limits, None, shell))
        return _TreePending(self, processes, tree)

    def lay_out(self, tree: Mapping[str, str], workdir: str) -> None:
        """Write the candidate ``tree`` into its test's empty folder (a subclass may link the files it has ready)."""
        materialise(tree, workdir)

    def argv(self, command: str, workdir: str) -> tuple[list[str], bool]:
        """What runs one test in ``workdir`` (the entry runner, the script, or the command), and whether through a shell."""
        if self.command is None:
            return [self.python, str(WORKER_SCRIPT), "--entry", str(self.entry)], False
        if self.command.script:
            return [*script_argv(command), workdir], False
        target = os.path.join(workdir, self.entry) if self.entry else workdir
        return command_argv(command, file=target, python=self.python, dir=workdir)

    def judge(self, tree: Mapping[str, str]) -> Verdict:
        return self.start(tree).wait()

    def classify(self, signatures: list[Signature]) -> Verdict:
        if self.command is not None:
            return self.command.classify(signatures)
        return self.classify_run(_run_from(signatures[0]))

    def close(self) -> None:
        """Nothing to release: every test's folder goes with its test."""

    def calibrate(self, tree: Mapping[str, str]) -> Verdict:
        """Run the original: set the target (exec) or the signature (command) and the timeout.

        Raises:
            UsageError: the entry file is not in the tree.
            NotReproducibleError: the original does not fail, or not reliably.
        """
        self._check_entry(tree)
        verdict = self._calibrate_once(tree)
        self._check_reliable(tree, verdict)
        return verdict

    def _check_reliable(self, tree: Mapping[str, str], first: Verdict) -> None:
        """Run the original again: the first run that does not fail stops it."""
        for _ in range(FLAKINESS_RUNS - 1):
            again = self.judge(tree)
            if again.outcome is not Outcome.FAIL:
                raise NotReproducibleError(
                    f"{self.wording.subject} does not fail reliably: a second run gave {again.outcome} ({again.run.describe()})"
                )

    def _check_entry(self, tree: Mapping[str, str]) -> None:
        if self.entry is not None and self.entry not in tree:
            raise UsageError(f"--entry {self.entry}: no such file in {self.wording.tree}")

    def _calibrate_once(self, tree: Mapping[str, str]) -> Verdict:
        return self._calibrate_command(tree) if self.command is not None else self._calibrate_entry(tree)

    def _calibrate_command(self, tree: Mapping[str, str]) -> Verdict:
        """Run the tree under the command: its signature becomes the target unless criteria were given."""
        command, timeout = self.command, self.options.timeout
        assert command is not None
        command.timeout = timeout if timeout is not None else 600.0
        pending = self.start(tree)
        if not isinstance(pending, _TreePending):
            return pending.wait()  # the command cannot even start: the caller's check reports it
        signatures = [p.wait() for p in pending.processes]
        verdict = command.adopt_original(signatures, timeout, self.wording.fails_not(), self.wording.job)
        run = replace(verdict.run, frames=frames_in_text(signatures[0].stderr)).located(lines_in(tree), pending.processes[0].workdir)
        self.raised_at = run.raised_at
        return Verdict(verdict.outcome, run)

    def _calibrate_entry(self, tree: Mapping[str, str]) -> Verdict:
        """Run the entry file: its exception becomes the target unless --expect named one."""
        timeout, options = self.options.timeout, self.options
        self.timeout = timeout if timeout is not None else 600.0
        run = self.judge(tree).run
        if timeout is None:
            self.timeout = max(MIN_TIMEOUT, 10 * run.seconds)
        if self.target is None:
            if run.ending != "exception":
                named = self.wording.entry_named or self.entry or "the entry"
                raise NotReproducibleError(f"{self.wording.fails_not()}: {no_exception(run, named)}")
            self.target = Target.from_run(run, options.match)
        verdict = self.classify_run(run)
        if verdict.outcome is not Outcome.FAIL:
            assert self.target is not None
            raise NotReproducibleError(f"{self.wording.fails_not()}: expected {self.target.describe()}, got {run.describe()}")
        self.raised_at = run.raised_at
        return verdict

    def classify_run(self, run: Run) -> Verdict:
        """As the exec oracle: no exception passes, the target fails, anything else is UNRESOLVED."""
        if run.ending == "ok":
            return Verdict(Outcome.PASS, run)
        if self.target is not None and self.target.matches(run):
            return Verdict(Outcome.FAIL, run)
        return Verdict(Outcome.UNRESOLVED, run)



@dataclass
class TreeOracle(DirectoryOracle):
    """Judges a tree (relative path → text) in a fresh sandbox folder holding a copy of it.

    Args:
        options: the oracle options; ``--append``, ``--stdin`` and ``--retries`` do not apply.
        entry: the file to run (exec oracle), relative to the tree; ``{file}`` in ``--run``.
        wording: as for :class:`DirectoryOracle`; a reduction passes ``REDUCING``.
        modes: file modes to give the copies (others get the default).
    """

    modes: Mapping[str, int] = field(default_factory=dict)
    forked: bool = True
    """Under astreduce's own interpreter, run the exec oracle's entry in a forked child (see
    :mod:`~astreduce.run.forked_tree`) instead of a new interpreter."""
    _forked: ForkedTree | None = field(default=None, init=False, repr=False, compare=False)
    notes: list[str] = field(default_factory=list, init=False, repr=False, compare=False)
    """What the user should know of how the tests run."""
    cpu: CpuBudget = field(default_factory=CpuBudget, init=False, repr=False, compare=False)
    """What a forked test may burn (fed with the CPU of the forked runs that failed as the original did)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.forked and self.python == sys.executable and (self.command is None or self._forkable_script() is not None):
            self._forked = ForkedTree(self.limits)

    def _forkable_script(self) -> str | None:
        """The ``--test`` script, when a forked child of this interpreter runs it as ``python SCRIPT`` would."""
        return None if self.command is None else self.command.forkable_script()

    def close(self) -> None:
        if self._forked is not None:
            self._forked.close()
            self._forked = None

    def _cpu_budget(self) -> float | None:
        """CPU seconds a forked test may burn (see :class:`~astreduce.run.sandbox.CpuBudget`); none when ``--timeout`` is given."""
        return None if self.options.timeout is not None else self.cpu.seconds()

    def calibrate(self, tree: Mapping[str, str]) -> Verdict:
        """Calibrate with plain runs (:meth:`DirectoryOracle.calibrate`), then keep the forked runs only
        when the original ends forked exactly as it ended plain (a note says so otherwise)."""
        forked, self._forked = self._forked, None
        verdict = super().calibrate(tree)
        if forked is None:
            return verdict
        self._forked = forked
        program = self._forkable_script()
        if program is not None:
            preload_imports(tree, Path(program).read_text(encoding="utf-8", errors="replace"))
        elif self.entry is not None:
            preload_imports(tree, tree[self.entry])
        again = self.judge(tree)  # with the program's imports made by the fork server: kept only if it ends the same
        self.tests -= 1  # the original once more, another way
        same = (again.outcome, again.run.exception, again.run.message) == (verdict.outcome, verdict.run.exception, verdict.run.message)
        if not same:
            forked.close()
            self._forked = None
            self.notes.append(
                f"tests run as new processes: the original run in a forked child ended otherwise ({again.run.describe()})"
            )
        return verdict

    def start(self, tree: Mapping[str, str]) -> Pending:
        if self._forked is not None:
            script = self._forkable_script()
            if script is not None:
                assert self.command is not None
                job = self._forked.start(tree, script, self.command.wait_limit, self._cpu_budget(), argv=("{dir}",))
                return _ForkedPending(self, job, tree)
            if self.entry is not None:
                return _ForkedPending(self, self._forked.start(tree, self.entry, self.timeout, self._cpu_budget()), tree)
        timeout = self.command.wait_limit if self.command is not None else self.timeout
        limits = self.limits.for_timeout(timeout)
        commands = self.command.commands if self.command is not None else [""]
        processes = []
        for command in commands:
            workdir = make_workdir()
            self.lay_out(tree, workdir)
            for path, mode in self.modes.items():
                if path in tree and mode & 0o111:
                    os.chmod(Path(workdir) / path, mode & 0o7777)
            argv, shell = self.argv(command, workdir)
            missing = None if shell else _not_runnable(argv[0], workdir)
            if missing is None:
                try:
                    processes.append(Process(argv, workdir, timeout, limits, None, shell))
                except OSError as error:  # what the check above cannot foresee (a bad #! line)
                    missing = f"cannot run {argv[0]}: {error.strerror}"
            if missing is not None:
                for process in processes:
                    process.kill()
                remove_workdir(workdir)
                return Finished(Verdict(Outcome.UNRESOLVED, Run("crash", detail=missing)))
        return _TreePending(self, processes, tree)

    def _check_reliable(self, tree: Mapping[str, str], first: Verdict) -> None:
        """Run the original again and report every run, as the single-file reducer does."""
        require_reliable(original_runs(self, tree, first), self.wording.subject)


class _ForkedPending(JobPending):
    """A tree's entry running in a forked child: the run comes as the exec oracle reports it."""

    def __init__(self, oracle: TreeOracle, job: Job, tree: Mapping[str, str]) -> None:
        super().__init__(job)
        self.oracle = oracle
        self.tree = tree

    def wait(self) -> Verdict:
        run = self.job.wait().located(lines_in(self.tree))
        self.oracle.tests += 1
        if self.oracle.command is None:
            verdict = self.oracle.classify_run(run)
        else:  # a script run in this child: its frames in the tree's modules, if it imported them, are the place
            judged = self.oracle.command.classify([forked_signature(run, self.job.exit_status)])
            verdict = Verdict(judged.outcome, replace(judged.run, frames=run.frames, raised_at=run.raised_at))
        if verdict.outcome is Outcome.FAIL:
            self.oracle.cpu.failed_in(run.spent)
        return verdict


def _not_runnable(program: str, workdir: str) -> str | None:
    """Why ``program`` cannot start in ``workdir``, or ``None``.

    A candidate tree may lack the very script that the command runs
    (``--run ./build.sh``): that is the candidate's failure (UNRESOLVED), not
    astreduce's, so it is found before ``Popen`` raises in our own process.
    """
    if os.sep in program:
        path = os.path.join(workdir, program)
        if not os.path.isfile(path):
            return f"cannot run {program}: no such file"
        if not os.access(path, os.X_OK):
            return f"cannot run {program}: not executable"
        return None
    if shutil.which(program) is None:
        return f"cannot run {program}: not found on PATH"
    return None


class FileInTree(Adapter[str, FileTree]):
    """An :class:`~astreduce.oracles.Oracle` over one file's text, the rest of the tree fixed."""

    def __init__(self, oracle: Oracle[FileTree], tree: Mapping[str, str], path: str) -> None:
        super().__init__(oracle)
        self.tree = dict(tree)
        self.path = path

    @property
    def identity(self) -> str:
        return f"{self.oracle.identity}|{self.path}"

    def convert(self, text: str) -> dict[str, str]:
        return {**self.tree, self.path: text}


def encode_tree(tree: Mapping[str, str]) -> str:
    """One text for a whole tree, the same for equal trees (the session's cache key)."""
    return json.dumps(dict(sorted(tree.items())))


def decode_tree(text: str) -> dict[str, str]:
    tree: dict[str, str] = json.loads(text)
    return tree


class EncodedTree(Adapter[str, FileTree]):
    """An :class:`~astreduce.oracles.Oracle` over encoded trees (see :func:`encode_tree`)."""

    def convert(self, text: str) -> dict[str, str]:
        return decode_tree(text)


def entry_tracer(oracle: TreeOracle, *, foreign_parser: bool) -> Callable[[str, Mapping[str, str]], TreeTracer | None] | None:
    """How ``value-from-trace`` records a file's values: the tree's entry runs, the file instrumented.

    As for one file, only when the tree runs as Python (its traits name an
    interpreter: the exec oracle), and only when that interpreter reads the
    file as ours does.
    """
    entry, python = oracle.entry, oracle.traits.python
    if python is None or entry is None or foreign_parser or version_of(python) < (3, 8):
        return None

    def tracer(path: str, tree: Mapping[str, str]) -> TreeTracer:
        return TreeTracer(tuple(tree.items()), entry, path, python=oracle.python, limits=oracle.limits)

    return tracer
