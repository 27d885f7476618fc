"""Critical slices of a run (STRIPE; Cleve & Zeller, AADEBUG 2000): ddmin over statement executions.

:func:`slice_run` records one traced run of the program (its events: each
execution of a statement line, numbered per line), then looks for a
1-minimal set of events whose execution alone, every other event skipped,
still reproduces the original's outcome (:class:`~astreduce.slicing.runs.Criterion`).
The search is hierarchical, as delta debugging over a structure should be:
first ddmin over the *lines* (all executions of a line kept or skipped
together: most lines do not matter at all), then ddmin over the single
executions of the lines that remain. Every test runs through one
:class:`~astreduce.search.session.Session`, so the shared scheduler runs
``-j`` tests at once in the search's order (same result for every ``-j``),
caches outcomes by configuration and honours stop requests.
"""

from __future__ import annotations

import hashlib
import re
import time
from contextlib import nullcontext
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from astreduce.dd import Outcome, ddmin
from astreduce.errors import NotReproducibleError, ReductionStopped, UsageError
from astreduce.interpreters import resolve_python, version_of
from astreduce.oracles import Target
from astreduce.oracles.options import OracleOptions
from astreduce.oracles import Verdict
from astreduce.reduce.single import budget_spent
from astreduce.search.cache import OutcomeStore, default_cache_dir
from astreduce.search.session import Budget, Interrupted, Session, StopRequest
from astreduce.slicing.runs import ChildRun, Criterion, Event, Launcher, SliceOracle, encode, record

#: The oldest interpreter the tracing child runs under (``ast`` end positions).
OLDEST_PYTHON = (3, 8)

T = TypeVar("T")


@dataclass(frozen=True)
class Level:
    """One ddmin of the search: over lines, then over events."""

    name: str
    elements: int
    kept: int
    tests: int


@dataclass(frozen=True)
class TestRun:
    """One test as it ran: the events applied (indices into the trace) and its outcome."""

    applied: tuple[int, ...]
    outcome: Outcome


@dataclass
class SliceResult:
    """A critical slice: the events of the trace whose execution alone reproduces the outcome."""

    program: str
    text: str
    """The program's source."""
    files: tuple[str, ...]
    """The traced files: the program, then each ``--include`` module's file."""
    modules: tuple[str, ...]
    """The ``--include`` module names (``files[1:]``)."""
    trace: tuple[Event, ...]
    kept: tuple[int, ...]
    """Indices into :attr:`trace` of the slice's events."""
    criterion: str
    tests: int
    cache_hits: int
    seconds: float
    oracle_seconds: float
    levels: list[Level] = field(default_factory=list)
    runs: list[TestRun] = field(default_factory=list)
    verified: bool = False
    interrupted: bool = False
    budget_ended: bool = False
    """Stopped by ``--max-tests`` or ``--max-time``: the smallest reproducing set so far, verified (a slice, not
    1-minimal)."""
    resumed: int = 0
    """Outcomes answered by the persistent cache of an earlier run (``--resume``) instead of a test."""

    @property
    def events(self) -> list[Event]:
        return [self.trace[i] for i in self.kept]

    def report(self) -> dict[str, object]:
        """The ``--report`` JSON: ``events`` as ``[line, occurrence]`` (``[line, occurrence, module]`` for ``--include``)."""
        events: list[list[object]] = [
            [line, occurrence] if index == 0 else [line, occurrence, self.modules[index - 1]]
            for index, line, occurrence in self.events
        ]
        return {
            "program": self.program,
            "criterion": self.criterion,
            "events": events,
            "lines": sorted({line for index, line, _ in self.events if index == 0}),
            "tests": self.tests,
            "trace_length": len(self.trace),
            "cache_hits": self.cache_hits,
            "seconds": round(self.seconds, 3),
            "oracle_seconds": round(self.oracle_seconds, 3),
            "levels": [{"name": v.name, "elements": v.elements, "kept": v.kept, "tests": v.tests} for v in self.levels],
            "runs": [{"applied": len(r.applied), "outcome": str(r.outcome)} for r in self.runs],
            "verified": self.verified,
            "interrupted": self.interrupted,
            "budget_ended": self.budget_ended,
            "resumed": self.resumed,
        }


def check_slice_options(options: OracleOptions) -> None:
    """Refuse what a slice cannot take: another oracle, and the options that only go with one.

    Raises:
        UsageError: naming the options.
    """
    refused = [
        name
        for name, value in (
            ("--run", options.run), ("--test", options.test), ("--differential", options.differential),
            ("--signal", options.signal), ("--hang", options.hang is not None),
            ("--retries", options.retries > 1), ("--stdin (without FILE)", options.stdin),
        )
        if value
    ]
    if refused:
        raise UsageError(f"{', '.join(refused)}: not for slice, which runs the program itself")
    OracleOptions(
        expect=options.expect, match=options.match, confine=options.confine, allow_write=options.allow_write,
        allow_network=options.allow_network,
    ).check()
    for name, pattern in (("--stdout", options.stdout), ("--stderr", options.stderr)):
        if pattern is not None:
            _check_regex(name, pattern)
    if options.timeout is not None and options.timeout <= 0:
        raise UsageError("--timeout must be positive")


def _check_regex(name: str, pattern: str) -> None:
    try:
        re.compile(pattern)
    except re.error as error:
        raise UsageError(f"{name} {pattern!r}: not a valid regular expression: {error}") from None


def slice_run(
    program: str | Path,
    options: OracleOptions | None = None,
    *,
    stdin: str | Path | None = None,
    include: Sequence[str] = (),
    jobs: int = 1,
    stop: StopRequest | None = None,
    budget: Budget | None = None,
    resume: bool = False,
    cache_dir: str | Path | None = None,
    on_test: Callable[[int, Verdict], None] | None = None,
) -> SliceResult:
    """Find a critical slice of a run of ``program``: a 1-minimal set of statement executions that
    reproduces the run's outcome when every other execution is skipped.

    Args:
        program: the Python file to run (as ``__main__``).
        options: the oracle options of ``reduce`` that a slice takes: ``expect`` (and ``match``),
            ``stdout``, ``stderr`` (regular expressions searched in the output), ``exit_code``,
            ``append`` (a script's text run after the program), ``python``, ``timeout``. Without
            ``expect``, ``stdout``, ``stderr`` and ``exit_code``: the whole output (standard output
            and exit status) must stay the same.
        stdin: a file the program reads as its standard input in every run.
        include: modules whose statements are events too (imported from the program's folder or sys.path).
        jobs: tests at once; the slice is the same for every value.
        stop: lets a signal handler stop the search between two tests.
        budget: tests and seconds the search may spend (``--max-tests``, ``--max-time``); then the smallest
            reproducing set so far is verified and returned, ``budget_ended``.
        resume, cache_dir: keep outcomes in the persistent cache (``--resume``, by default under
            ``~/.cache/astreduce``): a rerun of the same program, run and options runs no configuration twice.
        on_test: hears each test counted, with its number (``--verbose``).

    Raises:
        UsageError: options a slice cannot take, an unreadable program or input, a program that does
            not parse, an interpreter older than 3.8.
        NotReproducibleError: the program does not show the outcome, or not under the tracer.
        ReductionStopped: stopped (``stop``); ``.result`` holds the smallest reproducing set so far.
    """
    started = time.monotonic()
    options = options or OracleOptions()
    check_slice_options(options)
    if jobs < 1:
        raise UsageError("-j must be at least 1")
    path = Path(program)
    try:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror}") from None
    stdin_path = Path(stdin) if stdin is not None else None
    if stdin_path is not None and not stdin_path.is_file():
        raise UsageError(f"--input {stdin_path}: no such file")
    python = resolve_python(options.python)
    version = version_of(python)
    if version < OLDEST_PYTHON:
        raise UsageError(f"--python {options.python}: slice runs programs under Python 3.8 or newer, not {version[0]}.{version[1]}")
    expect = Target.parse(options.expect, options.match) if options.expect else None
    criterion = Criterion(expect, options.stdout, options.stderr, options.exit_code)
    launcher = Launcher(path, python=python, append=options.append, stdin=stdin_path, include=include, limits=options.limits())
    store = None
    try:
        original = record(launcher, options.timeout)
        _check_original(original, criterion, path, include)
        oracle = SliceOracle(launcher, original, criterion, options.timeout)
        # a configuration names events by number: the same numbers mean the same events only for the same run
        run = hashlib.blake2b(repr((text, options.append, include, original.events)).encode(errors="surrogateescape")).hexdigest()
        store = OutcomeStore(cache_dir or default_cache_dir(), f"{oracle.identity}|{run}") if resume else None
        session = Session(encode(range(len(original.events))), oracle.judge, start=oracle.start, jobs=jobs, stop=stop,
                          budget=budget, store=store, on_test=on_test)
        return _Search(path, text, oracle, include, session, stop, started).run()
    finally:
        launcher.close()
        if store is not None:
            store.close()


def _check_original(original: ChildRun, criterion: Criterion, path: Path, include: Sequence[str]) -> None:
    if original.ending == "syntax":
        raise UsageError(f"{path} does not parse: {original.message}")
    if original.ending not in ("ok", "exception"):
        raise NotReproducibleError(f"{path} does not run to its end under the tracer: {original.describe()}")
    unused = [name for name, file in zip(include, original.files[1:]) if not file]
    if unused:
        raise UsageError(f"--include {', '.join(unused)}: the run never imported it from a source file")
    if criterion.judge(original, original) is not Outcome.FAIL:
        raise NotReproducibleError(f"{path} does not reproduce: wanted {criterion.describe()}, got {original.describe()}")


class _Search:
    """The two ddmin levels over one session, and what the result needs from them."""

    def __init__(
        self, path: Path, text: str, oracle: SliceOracle, include: Sequence[str], session: Session,
        stop: StopRequest | None, started: float,
    ) -> None:
        self.path = path
        self.text = text
        self.oracle = oracle
        self.include = tuple(include)
        self.trace = oracle.original.events
        self.full = encode(range(len(self.trace)))
        self.session = session
        self.stop = stop
        self.started = started
        self.runs: list[TestRun] = []
        self.levels: list[Level] = []
        self.best: tuple[int, ...] = tuple(range(len(self.trace)))
        self.known_hits = 0
        """Outcomes known without the session: the full run, checked before the search."""

    def run(self) -> SliceResult:
        first = self.oracle.judge(self.full)
        if first.outcome is not Outcome.FAIL:
            raise NotReproducibleError(
                f"{self.path} does not reproduce under the skipping tracer with every event applied: "
                f"{first.outcome} ({first.run.describe()})"
            )
        interrupted = False
        try:
            with self.stop.search() if self.stop is not None else nullcontext():
                lines = list(dict.fromkeys((f, line) for f, line, _ in self.trace))
                chosen = self._level("lines", lines, lambda kept: [i for i, (f, n, _) in enumerate(self.trace) if (f, n) in set(kept)])
                events = [i for i, (f, n, _) in enumerate(self.trace) if (f, n) in set(chosen)]
                self._level("events", events, lambda kept: list(kept))
        except (Interrupted, KeyboardInterrupt):
            interrupted = True
        finally:
            self.session.close()
            interrupted = interrupted or (self.stop is not None and self.stop.requested)
        budget_ended = budget_spent(self.session.budget, interrupted, self.stop)
        interrupted = interrupted and not budget_ended
        verified = self.oracle.judge(encode(self.best)).outcome is Outcome.FAIL
        result = SliceResult(
            program=str(self.path),
            text=self.text,
            files=self.oracle.original.files,
            modules=self.include,
            trace=self.trace,
            kept=self.best,
            criterion=self.oracle.criterion.describe(),
            tests=self.session.tests,
            cache_hits=self.session.cache_hits + self.known_hits,
            seconds=time.monotonic() - self.started,
            oracle_seconds=self.session.oracle_seconds,
            levels=self.levels,
            runs=self.runs,
            verified=verified,
            interrupted=interrupted,
            budget_ended=budget_ended,
            resumed=self.session.resumed,
        )
        if interrupted:
            raise ReductionStopped("interrupted", result)
        return result

    def _level(self, name: str, elements: list[T], applied: Callable[[Sequence[T]], list[int]]) -> list[T]:
        """ddmin over ``elements``; ``applied`` gives the events a subset applies."""
        tests = self.session.tests
        kept: list[T] = []
        if elements:
            kept = list(ddmin(
                elements,
                lambda subset: self.session.outcome(encode(applied(subset))),
                batch=lambda subsets: self._outcomes([applied(s) for s in subsets]),
            ))
        self.levels.append(Level(name, len(elements), len(kept), self.session.tests - tests))
        return kept

    def _outcomes(self, configurations: list[list[int]]) -> Iterator[Outcome]:
        """Outcomes from the session, in order; each test run is logged, the smallest FAIL kept."""
        texts = [encode(c) for c in configurations]
        if texts == [self.full]:  # dd's check of a level's whole input: the full run, known to FAIL
            self.known_hits += 1
            yield Outcome.FAIL
            return
        results = self.session.outcomes(texts)
        tests = self.session.tests
        try:
            for configuration, outcome in zip(configurations, results):
                if self.session.tests > tests:
                    self.runs.append(TestRun(tuple(configuration), outcome))
                    tests = self.session.tests
                if outcome is Outcome.FAIL and len(configuration) < len(self.best):
                    self.best = tuple(configuration)
                yield outcome
        finally:
            results.close()  # type: ignore[attr-defined]  # a generator: the session cancels what runs ahead


__all__ = ["Level", "SliceResult", "TestRun", "check_slice_options", "slice_run"]
