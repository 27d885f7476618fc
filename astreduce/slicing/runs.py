"""Runs of the program under the tracing child, and how a run is judged.

A run is one process of :mod:`astreduce.slicing._child` under the
program's interpreter, never astreduce's own process: it starts through the
command oracle's :class:`~astreduce.oracles.command.Process` (a fresh
folder, its own process group, resource limits, a timeout, dying with
astreduce), with the program's standard input from ``--stdin FILE``.
``record`` runs return the trace; ``test`` runs skip the events they are
told to skip. :class:`SliceOracle` is the :class:`~astreduce.oracles.Oracle`
the shared scheduler drives: its candidate texts name the events applied
(:func:`encode`), the others are skipped.

Judging (:class:`Criterion`): a run that crashed, hung (its time or its line
budget ran out), could not skip what it was told, or left the recorded run
(a line ran more often than there) is UNRESOLVED; so is a
run that raised another exception than the original (or ``--expect``'s),
or raised one where the original raised none. Otherwise it is FAIL when
every given criterion holds (``--expect``, ``--stdout``, ``--stderr``,
``--exit-code``), and without any, when its standard output and exit
status are the original's (the paper's "whole output"); else PASS. As for
every command oracle, the last 64 KiB of each output are what is compared.
"""

from __future__ import annotations

import ast
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from astreduce.oracles import Converted, Target, Traits, Verdict

from astreduce.run import Run
from astreduce.oracles.command import Criteria
from astreduce.run.process import Process, ProcessesPending, Signature
from astreduce.run.sandbox import MIN_TIMEOUT, Limits, make_workdir
from astreduce.outcome import Outcome

#: The child script, run by path so that any interpreter from 3.8 on can run it.
CHILD = str(Path(__file__).with_name("_child.py"))

#: One execution of a unit: (file index (0: the program, then each ``--include``), line, occurrence).
Event = tuple[int, int, int]

#: Seconds the recording run may take.
RECORD_TIMEOUT = 60.0


@dataclass(frozen=True)
class ChildRun:
    """What one run of the program did, as the child and the process showed it."""

    ending: str
    """``ok``, ``exception``, ``syntax``, ``timeout`` (time or line budget), ``crash``, ``error`` (a skip
    CPython refused), ``diverged`` (a line ran more often than in the recorded run)."""
    exception: str = ""
    message: str = ""
    frame: str = ""
    exit_code: int = 0
    detail: str = ""
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    lines: int = 0
    """Lines of traced code executed."""
    events: tuple[Event, ...] = ()
    files: tuple[str, ...] = ()

    def as_run(self) -> Run:
        return Run(self.ending, self.exception, self.message, self.frame, self.seconds, self.detail)

    def describe(self) -> str:
        if self.ending == "ok":
            return f"exit status {self.exit_code}" if self.exit_code else "no exception"
        return self.as_run().describe()


@dataclass(frozen=True)
class Criterion:
    """What a run must show to reproduce the original's outcome (see the module docstring)."""

    expect: Target | None = None
    stdout: str | None = None
    stderr: str | None = None
    exit_code: int | None = None

    @property
    def is_whole_output(self) -> bool:
        return self.expect is None and self.stdout is None and self.stderr is None and self.exit_code is None

    def describe(self) -> str:
        if self.is_whole_output:
            return "the whole output (standard output and exit status)"
        parts = [f"raises {self.expect.describe()}"] if self.expect is not None else []
        parts += [f"{name} matches /{value}/" for name, value in (("stdout", self.stdout), ("stderr", self.stderr)) if value is not None]
        if self.exit_code is not None:
            parts.append(f"exit status {self.exit_code}")
        return ", ".join(parts)

    def judge(self, run: ChildRun, original: ChildRun) -> Outcome:
        if run.ending not in ("ok", "exception"):
            return Outcome.UNRESOLVED
        if not self._same_ending(run, original):
            return Outcome.UNRESOLVED if run.ending == "exception" else Outcome.PASS
        if self.is_whole_output:
            same = run.stdout == original.stdout and run.exit_code == original.exit_code
            return Outcome.FAIL if same else Outcome.PASS
        criteria = Criteria(None, self.exit_code, self.stderr, self.stdout, None)
        signature = Signature(None, run.exit_code, "", stdout=run.stdout, stderr=run.stderr)
        return Outcome.FAIL if criteria.holds(signature) else Outcome.PASS

    def _same_ending(self, run: ChildRun, original: ChildRun) -> bool:
        """Whether ``run`` raised what it should: ``--expect``'s exception, else the original's (or none)."""
        if self.expect is not None:
            return self.expect.matches(run.as_run())
        if original.ending == "exception":
            return run.ending == "exception" and (run.exception, run.message) == (original.exception, original.message)
        return run.ending == "ok"


def encode(applied: Sequence[int]) -> str:
    """A candidate text: the indices (in the trace) of the events applied, in order."""
    return ",".join(map(str, applied))


def decode(text: str) -> list[int]:
    return [int(i) for i in text.split(",")] if text else []


class Launcher:
    """Starts runs of one program under the child, each in a fresh folder with its own limits."""

    def __init__(
        self, program: Path, *, python: str, append: str = "", stdin: Path | None = None, include: Sequence[str] = (),
        limits: Limits | None = None,
    ) -> None:
        self.program = program.resolve()
        self.python = python
        self.append = append
        self.stdin = str(stdin.resolve()) if stdin is not None else None
        self.include = list(include)
        self.folder = tempfile.mkdtemp(prefix="astreduce-slice-")
        """Specs and results: outside the runs' folders, which the runs may fill with anything."""
        self._count = 0
        base = limits if limits is not None else Limits()
        self.limits = replace(base, writable=(*base.writable, self.folder))  # the child writes its results there

    def start(
        self, mode: str, skip: Sequence[Event], timeout: float, budget: int | None, bounds: Sequence[Event] = ()
    ) -> ChildPending:
        self._count += 1
        spec_path = os.path.join(self.folder, f"spec-{self._count}.txt")
        result_path = os.path.join(self.folder, f"result-{self._count}.txt")
        spec = {
            "path": str(self.program), "mode": mode, "append": self.append, "include": self.include,
            "cache": os.path.join(self.folder, "code.marshal"),
            "skip": [list(e) for e in skip], "bounds": [list(e) for e in bounds], "budget": budget,
            "result": result_path,
        }
        with open(spec_path, "w", encoding="utf-8", errors="surrogateescape") as file:
            file.write(repr(spec))  # a literal: the child reads it without importing json
        # PYTHONHASHSEED: the same set orders in every run, so that occurrences mean the same thing
        argv = ["env", "PYTHONHASHSEED=0", self.python, CHILD, spec_path]
        process = Process(argv, make_workdir(), timeout, self.limits.for_timeout(timeout), self.stdin, False)
        return ChildPending(process, spec_path, result_path)

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


class ChildPending(ProcessesPending):
    """A run under way; :meth:`wait` gives its :class:`ChildRun`."""

    def __init__(self, process: Process, spec_path: str, result_path: str) -> None:
        super().__init__([process])
        self.process = process
        self.spec_path = spec_path
        self.result_path = result_path

    def cancel(self) -> None:
        super().cancel()
        self._forget()

    def wait(self) -> ChildRun:
        signature = self.process.wait()
        try:
            with open(self.result_path, encoding="utf-8", errors="surrogateescape") as file:
                raw = ast.literal_eval(file.read())
        except (OSError, ValueError, SyntaxError, MemoryError, RecursionError):
            raw = None
        finally:
            self._forget()
        if signature.timed_out:
            return ChildRun("timeout", detail="timed out", seconds=signature.seconds)
        if not isinstance(raw, dict):
            return ChildRun("crash", detail=signature.describe(), stderr=signature.stderr, seconds=signature.seconds)
        return ChildRun(
            ending=str(raw.get("ending", "crash")),
            exception=str(raw.get("exception", "")),
            message=str(raw.get("message", "")),
            frame=str(raw.get("frame", "")),
            exit_code=int(raw.get("exit_code") or 0),
            detail=str(raw.get("detail", "")),
            stdout=signature.stdout,
            stderr=signature.stderr,
            seconds=signature.seconds,
            lines=int(raw.get("lines") or 0),
            events=tuple((int(f), int(n), int(o)) for f, n, o in raw.get("events", [])),
            files=tuple(str(f) for f in raw.get("files", [])),
        )

    def _forget(self) -> None:
        for path in (self.spec_path, self.result_path):
            try:
                os.unlink(path)
            except OSError:
                pass


class SliceOracle:
    """The oracle of a slice: a candidate text names the events applied (:func:`encode`)."""

    def __init__(self, launcher: Launcher, original: ChildRun, criterion: Criterion, timeout: float | None) -> None:
        self.launcher = launcher
        self.original = original
        self.criterion = criterion
        self.timeout = timeout if timeout is not None else max(MIN_TIMEOUT, 10 * original.seconds)
        self.budget = 10 * original.lines + 100_000
        """Traced lines a test may run (a loop of compound headers alone that never ends stops here)."""
        counts: dict[tuple[int, int], int] = {}
        for index, line, occurrence in original.events:
            counts[index, line] = max(occurrence, counts.get((index, line), 0))
        self.bounds = [(index, line, count) for (index, line), count in counts.items()]
        """Each line's executions in the recorded run: a test that runs one more has left it."""

    @property
    def identity(self) -> str:
        return f"slice|{self.launcher.program}|{self.criterion}|{self.launcher.python}"

    @property
    def traits(self) -> Traits:
        """A candidate is a set of a run's events, not a program text."""
        return Traits()

    def calibrate(self, candidate: str) -> Verdict:
        return self.judge(candidate)

    def judge(self, candidate: str) -> Verdict:
        return self.start(candidate).wait()

    def start(self, candidate: str) -> Converted:
        applied = set(decode(candidate))
        skip = [e for i, e in enumerate(self.original.events) if i not in applied]
        return Converted(self.launcher.start("test", skip, self.timeout, self.budget, self.bounds), self.verdict)

    def verdict(self, run: ChildRun) -> Verdict:
        return Verdict(self.criterion.judge(run, self.original), run.as_run())

    def close(self) -> None:
        self.launcher.close()


def record(launcher: Launcher, timeout: float | None) -> ChildRun:
    """The traced run of the whole program: its events, output and ending."""
    return launcher.start("record", (), timeout or RECORD_TIMEOUT, None).wait()


__all__ = ["CHILD", "ChildRun", "Criterion", "Event", "Launcher", "SliceOracle", "decode", "encode", "record"]
