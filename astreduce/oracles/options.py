"""From the user's oracle options to a calibrated oracle.

One place decides which oracle the options describe (exec, command,
interestingness script, differential), checks that the combination makes
sense, runs the original to calibrate it, and checks that the original
reproduces the same way three times (a flaky oracle would make the search
chase noise). ``--retries N`` accepts a candidate only after N FAILs in a row.
"""

from __future__ import annotations

import os
import re
import signal
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Generic, TypeVar

from astreduce.errors import (
    AstReduceError,
    InputNotCompilingError,
    NotReproducibleError,
    UsageError,
)
from astreduce.interpreters import require_worker_python, resolve_python, version_of
from astreduce.oracles import Converted, Oracle, Pending, Target, Verdict, Wrapper
from astreduce.run import Run, confine
from astreduce.oracles.command import CommandOracle, Criteria
from astreduce.oracles.execution import ExecOracle
from astreduce.run.sandbox import Limits
from astreduce.oracles.worker import WORKER_DIED, WorkerExecOracle
from astreduce.outcome import Outcome
from astreduce.source.syntax import compile_error_under, python2_recipe

#: Runs of the original at the start; differing outcomes mean a flaky oracle.
FLAKINESS_RUNS = 3

#: What an oracle judges: a text, or a tree.
T = TypeVar("T")


@dataclass
class OracleOptions:
    """Every option that shapes the oracle, as the CLI and the API take them."""

    expect: str | None = None
    match: str = "message"
    append: str = ""
    timeout: float | None = None
    python: str | None = None
    run: str | None = None
    stdin: bool = False
    signal: str | None = None
    exit_code: int | None = None
    stderr: str | None = None
    stdout: str | None = None
    hang: float | None = None
    test: str | None = None
    differential: tuple[str, str] | None = None
    retries: int = 1
    extra: dict[str, Any] = field(default_factory=dict)
    """The option values of oracle kinds registered by other packages (:func:`register_oracle_kind`), by name."""
    confine: bool = True
    """Run every candidate confined: writes only in its test's folder, no TCP, no signals out (Landlock)."""
    allow_write: tuple[str, ...] = ()
    """Paths a confined candidate may also write (``--allow-write``)."""
    allow_network: bool = False
    """Let a confined candidate bind and connect TCP sockets (``--allow-network``)."""
    verbose: int = 0
    """Show, after each test, its outcome and the last this many lines it printed (``--verbose N``)."""
    anywhere: bool = False
    """Let a candidate fail anywhere (``--anywhere``); by default its failure must happen at the original's place
    (:mod:`astreduce.oracles.place`)."""
    allow_syntax_errors: bool = False
    """Let a candidate that does not parse be interesting even when the input parses (``--allow-syntax-errors``)."""

    def limits(self) -> Limits:
        """The sandbox every test of these options runs in: the default resource limits, and the confinement asked for."""
        return Limits(confine=self.confine, writable=tuple(self.allow_write), network=self.allow_network)

    @property
    def kind(self) -> str:
        """The name of the registered :class:`OracleKind` these options ask for (``exec`` when none does)."""
        chosen = [k for k in ORACLE_KINDS.values() if k.asked(self)]
        if len(chosen) > 1:
            raise UsageError(f"choose one oracle: {chosen[0].flag} and {chosen[1].flag} cannot be combined")
        return chosen[0].name if chosen else "exec"

    @property
    def runs_commands(self) -> bool:
        """Whether the oracle runs commands on a candidate (:meth:`command_oracle`), rather than the candidate itself."""
        return ORACLE_KINDS[self.kind].command is not None

    @property
    def runs_python(self) -> bool:
        """Whether the oracle runs the input as a Python program (the exec oracle), not as a command's input."""
        return ORACLE_KINDS[self.kind].runs_python

    @property
    def strict(self) -> bool:
        """Whether the options say what an interesting run is, beyond "it fails" (``--expect``, ``--signal``,
        ``--test``...): a batch's signature oracle then also asks the oracle for FAIL."""
        criteria = (self.signal, self.exit_code, self.stderr, self.stdout, self.hang)
        return bool(self.expect) or ORACLE_KINDS[self.kind].strict or any(c is not None for c in criteria)

    def check(self) -> None:
        """Raise UsageError for options that do not go together: where a job's settings are gathered
        (:class:`~astreduce.reduce.single.ReduceConfig`) or an oracle is built from them. Each kind's own
        options (:attr:`OracleKind.owns`) go with that kind only, and each kind checks its own
        (:attr:`OracleKind.check`)."""
        chosen = ORACLE_KINDS[self.kind]
        for kind in ORACLE_KINDS.values():
            if kind is chosen:
                continue
            given = [flag for field_name, flag in kind.owns if _given(self, field_name)]
            if given:
                raise UsageError(f"{', '.join(given)} go with {kind.called}, not with {chosen.called}")
        chosen.check(self)
        if self.match not in ("type", "message", "first-line") and not self.match.startswith("regex:"):
            raise UsageError(f"--match must be type, message, first-line or regex:PATTERN, not {self.match!r}")
        if self.match.startswith("regex:"):
            try:
                re.compile(self.match[len("regex:") :])
            except re.error as error:
                raise UsageError(f"--match {self.match!r}: not a valid regular expression: {error}") from None
        if self.expect is not None and not self.expect.strip():
            raise UsageError("--expect needs an exception name like AssertionError[:message], not an empty string")
        if self.retries < 1:
            raise UsageError("--retries must be at least 1")
        for path in self.allow_write:
            if not os.path.exists(path):
                raise UsageError(f"--allow-write {path}: no such file or folder")
        if not self.confine and (self.allow_write or self.allow_network):
            raise UsageError("--allow-write and --allow-network widen the confinement that --no-confine turns off: give one or the other")
        for name, seconds in (("--timeout", self.timeout), ("--hang", self.hang)):
            if seconds is not None and not seconds > 0:  # also NaN
                raise UsageError(f"{name} must be a positive number of seconds, not {seconds:g}")

    def check_tree(self, entry: str | None, wording: Wording) -> None:
        """:meth:`check`, and what a tree of files cannot take: ``--append``, ``--stdin``, ``--retries``; an ``--entry`` outside it."""
        self.check()
        unsupported = [n for n, v in (("--append", self.append), ("--stdin", self.stdin), ("--retries", self.retries > 1)) if v]
        if unsupported:
            raise UsageError(f"{', '.join(unsupported)} cannot be used when {wording.trees}")
        kind = ORACLE_KINDS[self.kind]
        if kind.command is None and not kind.runs_python:
            raise UsageError(f"{kind.called} judges one text, not a tree: give it one file, or use --entry, --run or --test")
        if kind.command is None and entry is None:  # the tree runs as a program: from which file?
            raise UsageError(wording.needs_entry)
        if entry is not None and (Path(entry).is_absolute() or ".." in Path(entry).parts):
            raise UsageError(f"--entry {entry}: must be a path inside {wording.tree}")


    def empty_result_note(self) -> str:
        """The warning for a reduction that ends with nothing: the oracle may judge something other than the program."""
        why = ORACLE_KINDS[self.kind].empty_note(self)
        return f"the result is empty, so the oracle may judge something other than the program: {why}"

    def command_oracle(
        self, python: str, *, filename: str = "candidate.py", encode: Callable[[str], bytes] | None = None
    ) -> CommandOracle:
        """The command oracle these options describe (their kind's :attr:`~OracleKind.command`), uncalibrated:
        ``{python}`` stands for ``python``; the candidate is written under ``filename``, by ``encode``.

        Raises:
            UsageError: the kind runs the candidate as a program, with no command.
        """
        kind = ORACLE_KINDS[self.kind]
        if kind.command is None:
            raise UsageError(f"{kind.called} runs the candidate as a program: it has no command to run")
        return kind.command(self, python, filename, encode)


@dataclass(frozen=True)
class Wording:
    """How the messages of a tree's checks and calibration name the original and the job.

    ``reduce`` speaks of the *input*, ``isolate`` of its NEW version; the
    checks and the oracle are the same.
    """

    subject: str
    """What the original is called: ``input`` or ``NEW``."""
    job: str
    """What the original is run for: ``reduce`` or ``isolate``."""
    trees: str
    """When a tree is given: ``--stdin cannot be used when ...``."""
    needs_entry: str
    """The message for an exec oracle without ``--entry``."""
    tree: str
    """The tree, as ``--entry`` messages name it."""
    entry_named: str | None = None
    """How a calibration message names the entry file (``None``: by its path)."""

    def fails_not(self) -> str:
        """The start of a message saying that the original does not fail."""
        return "NEW does not fail" if self.subject == "NEW" else f"{self.subject} does not reproduce"


#: A multi-file reduction's wording.
REDUCING = Wording(
    "input",
    "reduce",
    "reducing a directory or several files",
    "a directory needs --entry FILE (the file to run as __main__) or a command oracle (--run, --test, --differential)",
    "the input",
)
#: ``astreduce isolate``'s wording, between two directories.
ISOLATING = Wording(
    "NEW",
    "isolate",
    "OLD and NEW are directories",
    "directories need --entry FILE (the file to run) or a command oracle (--run, --test, --differential)",
    "the tree",
    entry_named="it",
)


class RetryingOracle(Wrapper[T]):
    """FAIL only when the inner oracle says FAIL ``retries`` times in a row (a text's oracle or a tree's)."""

    def __init__(self, inner: Oracle[T], retries: int) -> None:
        super().__init__(inner)
        self.retries = retries

    @property
    def identity(self) -> str:
        return f"{self.inner.identity}|retries={self.retries}"

    def start(self, candidate: T) -> Pending:
        return _RetryPending(self, candidate, self.inner.start(candidate))


class _RetryPending(Generic[T]):
    def __init__(self, oracle: RetryingOracle[T], candidate: T, first: Pending) -> None:
        self.oracle = oracle
        self.candidate = candidate
        self.first = first

    def wait(self) -> Verdict:
        verdict = self.first.wait()
        for _ in range(self.oracle.retries - 1):
            if verdict.outcome is not Outcome.FAIL:
                break
            verdict = self.oracle.inner.judge(self.candidate)
        return verdict

    def cancel(self) -> None:
        self.first.cancel()


class EchoingOracle(Wrapper[T]):
    """Says, after each test of the inner oracle, how it ended and the last lines it printed (``--verbose``)."""

    def __init__(self, inner: Oracle[T], lines: int, write: Callable[[str], None]) -> None:
        super().__init__(inner)
        self.lines = lines
        self.write = write
        self.count = 0

    def start(self, candidate: T) -> Pending:
        return Converted(self.inner.start(candidate), self.echoed)

    def echoed(self, verdict: Verdict) -> Verdict:
        """``verdict``, once said."""
        self.echo(verdict)
        return verdict

    def echo(self, verdict: Verdict) -> None:
        self.count += 1
        self.write(said_of_test(self.count, verdict, self.lines))


def said_of_test(number: int, verdict: Verdict, lines: int) -> str:
    """``--verbose``'s words for test ``number``: how it ended, and the last ``lines`` lines it printed."""
    run = verdict.run
    said = [f"test {number}: {verdict.outcome.value} ({run.describe()}, {run.seconds:.2f} s)"]
    said += [f"  | {line}" for line in run.output.splitlines()[-lines:]]
    return "\n".join(said)


def describe_judgement(oracle: Oracle[str], options: OracleOptions | None = None, append_name: str | None = None) -> str:
    """What makes a candidate interesting, in a few words for titles (a comparison's table and plot): the
    kind's :attr:`~OracleKind.judgement`.

    ``options`` ``None``: an oracle handed to the API, described by its target or its identity.
    """
    if options is None:
        target = oracle.traits.target
        return f"raises {target}" if target else oracle.identity
    kind = ORACLE_KINDS[options.kind]
    target = oracle.traits.target or oracle.identity
    text = kind.judgement(options, target) if kind.judgement is not None else kind.describe(options)
    if append_name:
        text += f", with {append_name} appended"
    if options.python:
        text += f" (Python {options.python})"
    return text


def build_oracle(
    options: OracleOptions, original: Original, *, jobs: int = 1, on_runs: Callable[[list[Verdict]], None] | None = None,
) -> Oracle[str]:
    """The oracle ``options`` describe, calibrated on the original.

    With ``jobs`` above 1 the original's repeated runs (the flakiness check)
    run at once, as the search's tests will; ``on_runs`` hears them (how long one run takes).

    Raises:
        UsageError: options that do not go together, an unknown interpreter.
        NotReproducibleError: the original does not reproduce, or not reliably.
    """
    try:
        oracle, first = calibrated_oracle(options, original)
    except NotReproducibleError as error:
        raise blame_confinement(options, error) from None
    runs = _check_flakiness(oracle, original.text, first, options.retries, jobs)
    if on_runs is not None:
        on_runs(runs)
    if options.retries > 1:
        return RetryingOracle(oracle, options.retries)
    return oracle


_DENIED_PATH = re.compile(r"(?:Permission denied|Read-only file system|Operation not permitted): '([^']+)'")
_DENIED = re.compile(r"Permission denied|Operation not permitted|Errno 13|Errno 1\b|EACCES|EPERM|Network is unreachable|Errno 101\b")


def blame_confinement(options: OracleOptions, error: NotReproducibleError) -> AstReduceError:
    """Why an original does not reproduce: its confinement, when what it did is what confinement denies.

    The reduction would otherwise chase another failure, so it stops with
    one line (exit 2) naming what was denied and the flag that allows it.
    Told from the run itself (a ``PermissionError``, a read-only file
    system): the original is never run unconfined to find out, for
    astreduce runs nothing unconfined unless ``--no-confine`` says so.
    """
    return denied_by_confinement(options, str(error)) or error


def denied_by_confinement(options: OracleOptions, said: str) -> UsageError | None:
    """The one-line error for an original whose run (``said``: how it ended) shows confinement's denial, or None.

    Also for an original that *reproduces*: without ``--expect`` (or
    criteria for a command), the target is whatever the original did, and
    a target that is confinement's own ``PermissionError`` is not the
    user's failure.
    """
    if not options.confine or confine.abi() == 0:  # type: ignore[no-untyped-call]  # free of annotations
        return None
    path = _DENIED_PATH.search(said)
    if path is not None:
        folder = os.path.dirname(path.group(1).rstrip("/")) or "/"
        what, flag = f"writing {path.group(1)}", f"--allow-write {folder}"
    elif _DENIED.search(said):
        what, flag = "a network connection, a signal or a write outside its folder", "--allow-network or --allow-write PATH"
    else:
        return None
    why = said.split(": ", 1)[-1] if said.startswith("input does not reproduce") else said
    return UsageError(
        f"the input fails otherwise when confined: it was denied {what} ({why}); "
        f"allow it with {flag}, or run it unconfined with --no-confine"
    )


def calibrated_oracle(options: OracleOptions, original: Original) -> tuple[Oracle[str], Verdict]:
    """The oracle ``options`` describe, calibrated on one run of the original, and that run's verdict.

    :func:`build_oracle` adds the flakiness check; ``astreduce batch`` runs
    each input just this once. The oracle's kind (:data:`ORACLE_KINDS`) builds it.

    Raises:
        UsageError: options that do not go together, an unknown interpreter.
        NotReproducibleError: the original does not reproduce.
    """
    options.check()
    return ORACLE_KINDS[options.kind].calibrate(options, original)


def describe_options(options: OracleOptions) -> str:
    """The oracle the options describe, in a few words, for the run's first line."""
    return ORACLE_KINDS[options.kind].describe(options)


@dataclass(frozen=True)
class Original:
    """The input an oracle is calibrated on, and how its candidates are named and written."""

    text: str
    filename: str
    search_path: str = ""
    """Folders the exec oracle puts first on ``sys.path`` (the input's own)."""
    encode: Callable[[str], bytes] | None = None
    """How a command oracle writes a candidate's text (the input's encoding)."""


@dataclass(frozen=True)
class OracleKind:
    """One kind of oracle the options can ask for: an entry of :data:`ORACLE_KINDS`.

    An oracle of another package registers one with :func:`register_oracle_kind`
    and reads its own options from :attr:`OracleOptions.extra`; the CLI adds its
    options through an option group (:func:`astreduce.cli.options.add_oracle_option_group`).
    """

    name: str
    flag: str
    """The option that asks for it, as messages name it (``--run``)."""
    asked: Callable[[OracleOptions], bool]
    """Whether the options ask for this kind (the exec oracle is the one asked when no other is)."""
    calibrate: Callable[[OracleOptions, Original], tuple[Oracle[str], Verdict]]
    """Build the oracle and run the original once: the oracle and that run's verdict
    (raise :class:`NotReproducibleError` when the original is not interesting)."""
    describe: Callable[[OracleOptions], str]
    """The oracle in a few words, for the run's first line."""
    judgement: Callable[[OracleOptions, str], str] | None = None
    """What makes a candidate interesting, in a few words for titles, from the options and the calibrated
    oracle's target (``raises AssertionError('My Test')``, ```black -` exits 123``); None: :attr:`describe`'s words."""
    empty_note: Callable[[OracleOptions], str] = lambda options: "an empty program reproduces"
    """Why an empty result is suspicious under this kind: what the user should check."""
    named: str = ""
    """How messages name it (``the exec oracle``); its flag when empty (see :attr:`called`)."""
    owns: tuple[tuple[str, str], ...] = ()
    """Its own options, as (:class:`OracleOptions` field, flag): refused with any other kind."""
    check: Callable[[OracleOptions], None] = lambda options: None
    """Its own checks of the options (raise :class:`UsageError`)."""
    command: Callable[[OracleOptions, str, str, Callable[[str], bytes] | None], CommandOracle] | None = None
    """Its command oracle, uncalibrated, from the options, what ``{python}`` stands for, the candidate's file
    name and encoding: what its calibration, a tree's oracle and a bug report run; None for a kind that runs
    the candidate as a program (a tree then needs ``--entry``)."""
    runs_python: bool = False
    """Whether it runs the input as a Python program (the grammar strategy then checks it parses)."""
    strict: bool = False
    """Whether being asked already says what an interesting run is, beyond "it fails"."""

    @property
    def called(self) -> str:
        """How messages name it: :attr:`named`, else its flag."""
        return self.named or self.flag


def _calibrated_exec(options: OracleOptions, original: Original) -> tuple[Oracle[str], Verdict]:
    text, filename = original.text, original.filename
    python = resolve_python(options.python)
    require_worker_python(python, options.python)
    target = Target.parse(options.expect, options.match) if options.expect else None
    exec_oracle: ExecOracle
    limits = options.limits()
    if python == sys.executable:
        exec_oracle = ExecOracle(
            target=target, filename=filename, append=options.append, search_path=original.search_path, limits=limits,
            keep_output=options.verbose > 0,
        )
    else:
        exec_oracle = WorkerExecOracle(
            target=target, filename=filename, append=options.append, search_path=original.search_path, python=python,
            limits=limits,
        )
    try:
        first = exec_oracle.calibrate(text, match=options.match, timeout=options.timeout)
        if isinstance(exec_oracle, WorkerExecOracle) and first.run.ending == "crash" and first.run.detail == WORKER_DIED:
            raise UsageError(
                f"--python {options.python}: the exec oracle's worker cannot run under {python} (it exited or did "
                "not answer); use a command oracle instead: --run '{python} {file}'"
            )
        require_compiles(first, target, text, filename=filename, python=python)
        require_target(exec_oracle, first)
        denied = None if options.expect else denied_by_confinement(options, first.run.describe())
        if denied is not None:  # the target would be confinement's own error
            raise denied
    except BaseException:
        exec_oracle.close()
        raise
    return exec_oracle, first


def _calibrated_command(options: OracleOptions, original: Original) -> tuple[Oracle[str], Verdict]:
    python = resolve_python(options.python)
    command_oracle = options.command_oracle(python, filename=original.filename, encode=original.encode)
    try:
        verdict = command_oracle.calibrate(original.text, timeout=options.timeout)
        signature = command_oracle.target
        denied = None if signature is None or command_oracle.criteria.given else denied_by_confinement(options, signature.stderr_line)
        if denied is not None:  # the original's signature, the target, would be confinement's own error
            raise denied
        return command_oracle, verdict
    except BaseException:
        command_oracle.close()
        raise


def _describe_exec(options: OracleOptions) -> str:
    said = f"the exec oracle ({'expects ' + options.expect if options.expect else 'the exception the input raises'}"
    said += f", under {options.python}" if options.python else ""
    return said + (", with a test script appended)" if options.append else ")")


def _describe_differential(options: OracleOptions) -> str:
    first, second = options.differential or ("", "")
    return f"`{first}` against `{second}`"


def _given(options: OracleOptions, name: str) -> bool:
    """Whether the option field ``name`` was given (differs from its default)."""
    default = next(f for f in fields(OracleOptions) if f.name == name).default
    return bool(getattr(options, name) != default)


def _check_run(options: OracleOptions) -> None:
    if options.signal is not None and options.signal.upper() != "ANY":
        known = {s.name for s in signal.Signals}
        if options.signal.upper() not in known and "SIG" + options.signal.upper() not in known:
            raise UsageError(f"--signal {options.signal}: no such signal (SEGV, ABRT, BUS, ILL, FPE, KILL, ... or any)")


def _run_judgement(options: OracleOptions, target: str) -> str:
    criteria = [
        f"killed by SIG{options.signal.upper().removeprefix('SIG')}" if options.signal else "",
        f"exits {options.exit_code}" if options.exit_code is not None else "",
        f"stderr matches /{options.stderr}/" if options.stderr else "",
        f"stdout matches /{options.stdout}/" if options.stdout else "",
        f"runs over {options.hang:g} s" if options.hang is not None else "",
    ]
    return f"`{options.run}` " + (", ".join(c for c in criteria if c) or "fails as on the input")


def _differential_judgement(options: OracleOptions, target: str) -> str:
    first, second = options.differential or ("", "")
    return f"`{first}` and `{second}` differ"


def _exec_empty_note(options: OracleOptions) -> str:
    if options.append:
        return "the --append script raises the target on its own, so the input may not matter"
    return "an empty program reproduces"


_COMMAND_EMPTY = "the command reproduces without the program; check that it runs {file}"


def _commands(
    commands: Callable[[OracleOptions], list[str]], script: bool = False,
) -> Callable[[OracleOptions, str, str, Callable[[str], bytes] | None], CommandOracle]:
    """A built-in kind's command oracle: its ``commands``, the ``--run`` criteria, ``--stdin``; ``script``: the
    commands are interestingness scripts (the candidate's path their argument, exit 0 interesting)."""

    def build(options: OracleOptions, python: str, filename: str, encode: Callable[[str], bytes] | None) -> CommandOracle:
        return CommandOracle(
            commands=commands(options), filename=filename,
            criteria=Criteria(options.signal, options.exit_code, options.stderr, options.stdout, options.hang),
            script=script, stdin=options.stdin, python=python, encode=encode, limits=options.limits(),
        )

    return build

#: Every kind of oracle, by name: the exec oracle, ``--run``, ``--test``, ``--differential``, and those
#: other packages register. A kind's options, checks, description, commands and notes are its entry's.
ORACLE_KINDS: dict[str, OracleKind] = {
    "exec": OracleKind(
        "exec", "--expect", lambda options: False, _calibrated_exec, _describe_exec,
        judgement=lambda options, target: f"raises {target}", empty_note=_exec_empty_note, named="the exec oracle",
        owns=(("expect", "--expect"), ("match", "--match"), ("append", "--append")), runs_python=True,
    ),
    "run": OracleKind(
        "run", "--run", lambda options: bool(options.run), _calibrated_command, lambda options: f"`{options.run}`",
        judgement=_run_judgement, empty_note=lambda options: _COMMAND_EMPTY,
        owns=(
            ("stdin", "--stdin"), ("signal", "--signal"), ("exit_code", "--exit-code"), ("stderr", "--stderr"),
            ("stdout", "--stdout"), ("hang", "--hang"),
        ),
        check=_check_run, command=_commands(lambda options: [options.run or ""]),
    ),
    "test": OracleKind(
        "test", "--test", lambda options: bool(options.test), _calibrated_command,
        lambda options: f"the test script {Path(options.test or '').name}",
        judgement=lambda options, target: f"script {Path(options.test or '').name} exits 0",
        empty_note=lambda options: (
            "the test script says interesting for an empty file; check that it reads the candidate, "
            "its first argument or the file under the input's name"
        ),
        command=_commands(lambda options: [options.test or ""], script=True), strict=True,
    ),
    "differential": OracleKind(
        "differential", "--differential", lambda options: bool(options.differential), _calibrated_command,
        _describe_differential, judgement=_differential_judgement, empty_note=lambda options: _COMMAND_EMPTY,
        command=_commands(lambda options: list(options.differential or ())), strict=True,
    ),
}


def register_oracle_kind(kind: OracleKind) -> None:
    """Make ``kind`` one the options can ask for (a name registered twice is replaced)."""
    ORACLE_KINDS[kind.name] = kind


def _check_flakiness(oracle: Oracle[str], text: str, first: Verdict, retries: int, jobs: int = 1) -> list[Verdict]:
    verdicts = original_runs(oracle, text, first, jobs)
    if retries <= 1:
        require_reliable(verdicts, "input", "; use --retries N to accept a candidate only after N reproductions")
    return verdicts


def require_compiles(first: Verdict, declared: Target | None, text: str, *, filename: str, python: str) -> None:
    """Refuse an original that does not compile under ``python``, unless ``--expect`` declares a syntax error.

    Without this, ``--python 3.6`` on 3.8 syntax would make the SyntaxError
    the target and "reduce" to any line 3.6 cannot parse, with exit 0.

    Raises:
        UsageError: naming line and column, and what to do instead.
    """
    if first.run.ending != "syntax" or (declared is not None and declared.is_syntax_error):
        return
    version = "%d.%d" % version_of(python)
    found = compile_error_under(python, text, filename)
    where, why = found if found else ("", f"{first.run.describe()} (with the --append script)")
    python2 = python2_recipe(why)
    raise InputNotCompilingError(
        f"{filename}:{where}{':' if where else ''} does not compile under Python {version}: {why}; "
        + (python2 if python2 else "reduce it under the Python it is written for (--python), or say --expect "
           "SyntaxError if the parse failure is the point")
    )


def no_exception(run: Run, what: str = "it") -> str:
    """Why a run that raised nothing cannot be reduced by the exec oracle, and the command oracle that can judge
    what it did instead (``what``: how to name the program). ``--expect`` names an exception the program
    raises: it cannot help a program that does not fail."""
    if run.ending == "ok":
        return (
            f"{what} raises no exception: it runs to the end, so there is no failure to keep; "
            "to reduce it for what it does instead, use a command oracle: "
            "--run '{python} {file}' with --stdout REGEX or --exit-code N, or --test SCRIPT"
        )
    return (
        f"{what} raises no exception ({run.describe()}); a command oracle judges that: "
        "--run '{python} {file}' with --signal, --exit-code, --stderr or --hang, or --test SCRIPT"
    )


def require_target(oracle: ExecOracle, first: Verdict) -> None:
    """Stop unless the original raised the target (``--expect``'s, or without it any exception).

    Raises:
        NotReproducibleError: saying what the original did, and the command oracle to use if it raises nothing.
    """
    if oracle.target is None:
        raise NotReproducibleError(f"input does not reproduce: {no_exception(first.run)}")
    if first.outcome is not Outcome.FAIL:
        raise NotReproducibleError(
            f"input does not reproduce: expected {oracle.target.describe()}, got {first.run.describe()}"
        )


def took(runs: Sequence[Verdict], seconds: float) -> str:
    """How long the original takes: one run's seconds (the median of ``runs``), else all of its runs'."""
    if not runs:
        return f"the original's runs took {seconds:.2f} s in all"
    each = sorted(verdict.run.seconds for verdict in runs)[len(runs) // 2]
    return f"one run of the original takes {each:.2f} s"


def original_runs(oracle: Oracle[T], original: T, first: Verdict, jobs: int = 1) -> list[Verdict]:
    """``first`` and :data:`FLAKINESS_RUNS` - 1 more runs of the original (with ``jobs`` above 1, at once)."""
    again = FLAKINESS_RUNS - 1
    if jobs > 1:  # the first run set the timeout and signature; the others are alike and independent
        pending = [oracle.start(original) for _ in range(min(jobs, again))]
        verdicts = [first] + [p.wait() for p in pending]
        verdicts += [oracle.judge(original) for _ in range(again - len(pending))]
    else:
        verdicts = [first] + [oracle.judge(original) for _ in range(again)]
    return verdicts


def require_reliable(verdicts: list[Verdict], subject: str, advice: str = "") -> None:
    """Stop unless every run of the original failed: a flaky oracle would make the search chase noise.

    Raises:
        NotReproducibleError: naming ``subject``, listing every run, then ``advice``.
    """
    if all(v.outcome is Outcome.FAIL for v in verdicts):
        return
    seen = "; ".join(f"{v.outcome} ({v.run.describe()})" for v in verdicts)
    raise NotReproducibleError(
        f"{subject} does not reproduce reliably: {FLAKINESS_RUNS} runs of the original gave {seen}{advice}"
    )
