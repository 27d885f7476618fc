"""The exec oracle: run a candidate as ``__main__`` in a forked child, match its exception.

The child compiles and runs the candidate — never astreduce's own process —
in the sandbox (:mod:`astreduce.run.sandbox`), with standard input
empty and output captured, and reports how the run ended through a pipe as
one line of JSON. The parent compares the exception with the target:

* the target exception (by type and message, or as ``--match`` says) → FAIL;
* no exception → PASS;
* anything else — a syntax error, another exception, a timeout, a crash,
  an exit without a report — → UNRESOLVED.

Forking costs about 2.5 ms where starting an interpreter costs 14 ms
(measured on 2 cores), and the child starts with the modules its fork server
imported, the original's own imports among them (:func:`~astreduce.run.preload.preloadable`).
Even that fork is off a test's path: each test's child is forked ahead, a
*spare* waiting for its candidate while the test before it runs (see
:mod:`astreduce.run.spare`). The appended test script is compiled once, not with every
candidate.
"""

from __future__ import annotations

import os
import sys
import time
import types
from collections import deque
from dataclasses import dataclass, field, replace

from astreduce.oracles import Prepared, Target, Traits, Verdict

from astreduce.run import APPENDED, Run, raised_in
from astreduce.oracles.alike import CodeKey
from astreduce.run.compiled import compile_candidate
from astreduce.run.forkserver import preload
from astreduce.run.preload import preloadable
from astreduce.oracles.pieces import ModuleCode, shift_lines
from astreduce.run.sandbox import (
    MIN_CPU_TIMEOUT,
    MIN_TIMEOUT,
    Limits,
)
from astreduce.run.spare import OUTPUT_NAME, Job, ProgramTest, Spare, start_in_spare
from astreduce.run.trace import tracer_under
from astreduce.outcome import Outcome

#: Texts shorter than this are compiled in the parent first: a syntax error then costs no fork.
PRECOMPILE_LIMIT = 20_000


@dataclass
class ExecOracle:
    """Runs a candidate as ``__main__`` in a forked child and matches its exception.

    Args:
        target: the exception that makes a candidate FAIL; ``None`` until
            :meth:`calibrate` reads it off the original.
        filename: the name the candidate runs under (its ``__file__``).
        append: text appended to every candidate (a separate test script).
        timeout: wall-clock seconds per test; ``None`` until :meth:`calibrate` sets it.
        cpu_timeout: CPU seconds per test, usually far below ``timeout``: a
            candidate that burns them is a hang however busy the machine
            is. ``None`` when the user set ``--timeout`` (then it is exact).
        search_path: directory put first on ``sys.path`` (the original's folder).
    """

    target: Target | None = None
    filename: str = "candidate.py"
    append: str = ""
    timeout: float | None = None
    cpu_timeout: float | None = None
    search_path: str = ""
    limits: Limits = field(default_factory=Limits)
    keep_output: bool = False
    """Keep the end of what each test printed in its run (``--verbose``)."""
    tests: int = 0
    seconds: float = 0.0
    _spare: Spare | None = field(default=None, init=False, repr=False, compare=False)
    _appended: tuple[str, types.CodeType | None] | None = field(default=None, init=False, repr=False, compare=False)
    """The append's text and its code compiled alone (None: it compiles only glued to a candidate)."""
    _statements: ModuleCode | None = field(default=None, init=False, repr=False, compare=False)
    """The code of the candidates' top-level statements, each compiled once (for the tests of candidates
    nobody compiled whole, and for their :class:`~astreduce.oracles.alike.CodeKey`)."""
    _key: CodeKey | None = field(default=None, init=False, repr=False, compare=False)
    """The key of candidates alike by byte code, read from the statements' code the tests run."""
    _calibrated_cpu: float | None = field(default=None, init=False, repr=False, compare=False)
    _raised_at: tuple[str, int] | None = field(default=None, init=False, repr=False, compare=False)
    """Where the original failed (:attr:`Traits.raised_at`)."""
    _recent_fails: deque[float] = field(default_factory=lambda: deque(maxlen=8), init=False, repr=False, compare=False)

    def _failed_in(self, seconds: float) -> None:
        """Tighten the CPU budget to 10x the slowest of the last FAILing runs (never above the calibrated one).

        The original's run includes compiling all of it: on stdlib_argparse
        (50 ms) its budget stayed 0.5 s while the reduced programs that
        reproduce ran in 11 ms, and 79 candidates that loop forever cost
        39 s of its 205. A reproducing program rarely needs ten times the
        CPU of the last ones that reproduced; one that does is UNRESOLVED.
        ``seconds``: the CPU its child reported (wall-clock when it did not).
        """
        if self._calibrated_cpu is None:
            return
        self._recent_fails.append(seconds)
        self.cpu_timeout = min(self._calibrated_cpu, max(MIN_CPU_TIMEOUT, 10 * max(self._recent_fails)))

    @property
    def identity(self) -> str:
        target = self.target
        described = "" if target is None else f"{target.exception}|{target.message}|{target.match}"
        return f"exec|{described}|{self.append}"

    @property
    def traits(self) -> Traits:
        """The candidate runs as Python, under this interpreter, traced as it runs (its appended test, its folder,
        its sandbox). Its compile is a check worth no test, except when the target is a syntax error:
        ``compile`` rejects more than the parser does (``return`` outside a function), and such a candidate
        may be just what a search for a compiler's error wants."""
        target = self.target
        alone = self._compiles_alone(target)
        return Traits(
            python=self.python_path, target=target.describe() if target is not None else "", exception=target.exception if target is not None else "",
            tracer=tracer_under(self.python_path, append=self.append, search_path=self.search_path, limits=self.limits),
            prepares=alone, raised_at=self._raised_at,
        )

    def _compiles_alone(self, target: Target | None) -> bool:
        """Whether a candidate that does not compile here can never be interesting: the target is no
        SyntaxError, this ``compile`` is the candidates', and ``--append`` compiles on its own (is not
        glued to the candidate's last lines)."""
        return (
            target is not None and not target.is_syntax_error and self.compiles_here
            and (not self.append or self._append_code() is not None)
        )

    python_path = sys.executable
    """The interpreter that runs the candidates (a worker's, under ``--python``)."""
    compiles_here = True
    """Whether this process's ``compile`` is the one the candidates meet (not under another interpreter)."""

    def calibrate(self, text: str, match: str = "message", timeout: float | None = None) -> Verdict:
        """Run the original once: set the target (if none) and the per-test timeout.

        Returns the original's verdict (its run in ``.run``); callers turn a
        mismatch into NotReproducibleError.
        """
        saved = self.timeout
        self.timeout = timeout if timeout is not None else 600.0
        preload(preloadable(text, self.append), self.search_path)
        run = self.run(text)
        self.timeout = saved if saved is not None else max(MIN_TIMEOUT, 10 * run.seconds)
        if saved is None:
            self.cpu_timeout = self._calibrated_cpu = max(MIN_CPU_TIMEOUT, 10 * run.seconds)
        if timeout is not None:
            self.timeout = timeout
            self.cpu_timeout = self._calibrated_cpu = None
        if self.target is None and run.ending in ("exception", "syntax"):
            self.target = Target.from_run(run, match)
        outcome = self.classify(run)
        self._raised_at = run.raised_at if outcome is Outcome.FAIL else None
        return Verdict(outcome, run)

    def locate(self, run: Run, lines: int) -> Run:
        """``run`` with where it raised (:attr:`Run.raised_at`): the innermost frame of the candidate, which has
        ``lines`` lines, under its file name; else of the appended script, by the script's own line."""
        if not run.frames:
            return run
        name = self.code_name
        at = raised_in(run.frames, lambda path: lines if path == name else None)
        if at is not None:
            return replace(run, raised_at=(self.filename, at[1]))
        if self.append:
            at = raised_in(run.frames, lambda path: lines + self.append.count("\n") + 1 if path == name else None)
            if at is not None:
                return replace(run, raised_at=(APPENDED, at[1] - lines))
        return run

    def judge(self, text: str) -> Verdict:
        # compiled here when its compile may decide (no key rejected it first): one that fails costs no child
        return self.start(text, compile_here=not self._compiles_alone(self.target)).wait()

    def classify(self, run: Run) -> Outcome:
        if run.ending == "ok":
            return Outcome.PASS
        if self.target is not None and self.target.matches(run):
            return Outcome.FAIL
        return Outcome.UNRESOLVED

    def run(self, text: str) -> Run:
        return self.start(text, compile_here=True).wait().run

    @property
    def code_name(self) -> str:
        """The name candidates are compiled under: the file's own name, whatever test folder it runs in."""
        return os.path.basename(self.filename)

    def prepare(self, text: str, whole: bool, alike: bool) -> Prepared | None:
        """``text`` made ready for its test (see :class:`~astreduce.oracles.Preparing`): compiled whole for a
        search that only wants candidates that compile (the token pass), and keyed by its byte code for one
        that shares verdicts between candidates alike; None when it does not compile. The compiles are the
        first step of its test, done here once: the test runs this code, or the statements' code the key
        compiled (kept by :class:`~astreduce.oracles.pieces.ModuleCode`)."""
        started = time.monotonic()
        code: types.CodeType | None = None
        if whole:
            compiled = compile_candidate(text, self.code_name)
            if isinstance(compiled, Run):
                return None
            code = compiled
        seconds = time.monotonic() - started
        key: bytes | None = None
        if alike:
            keyer = self._alike_key()
            spent = keyer.compile_seconds
            key = keyer(text)
            seconds += keyer.compile_seconds - spent  # the statements' compile, for the test; the rest is the key's
            if key is None:
                return None
        return Prepared(text, code, key, seconds)

    def _module_code(self) -> ModuleCode:
        if self._statements is None or self._statements.filename != self.code_name:
            self._statements = ModuleCode(self.code_name)
            self._key = None
        return self._statements

    def _alike_key(self) -> CodeKey:
        statements = self._module_code()
        if self._key is None:
            self._key = CodeKey(statements=statements.statement)
        return self._key

    def start(self, text: str, compile_here: bool = False) -> ExecPending:
        """Hand ``text`` to a child; the returned job reports how it ended.

        With ``compile_here`` (:meth:`judge`, when no key rejects a candidate
        that does not compile: the target is a syntax error, or the append
        compiles only glued to the candidate) a candidate under
        :data:`PRECOMPILE_LIMIT` is compiled here, so one that does not
        compile costs no child. Otherwise (``-j``: several tests run while this
        process renders and starts the next, or a longer candidate) the test
        runs the code of the candidate's top-level statements, each compiled
        here once per reduction (:class:`~astreduce.oracles.pieces.ModuleCode`):
        a candidate that changed one function compiles that function. A text
        that cannot be cut for sure is compiled whole by the child.
        """
        prepared = text.code if isinstance(text, Prepared) else None
        text = str(text)  # a plain str from here on: the child's payload is marshalled
        append_code = self._append_code()
        glued = self.append and append_code is None  # the append compiles only after a candidate
        source = text + ("\n" + self.append if self.append else "")
        code: types.CodeType | tuple[types.CodeType, ...] | None = None if glued else prepared
        if code is None and compile_here and len(source) < PRECOMPILE_LIMIT:
            compiled = compile_candidate(source if glued else text, self.code_name)
            if isinstance(compiled, Run):
                return ExecPending(self, None, compiled, 0)
            code = compiled
        if code is None and not glued:
            parts = self._module_code().codes(text)
            code = None if parts is None else tuple(parts)
        if append_code is not None:  # its lines as in the file the child writes: the candidate's, then its own
            append_code = shift_lines(append_code, text.count("\n") + 1)
        timeout = self.timeout if self.timeout is not None else 600.0
        needed = None if glued or code is not None else text  # the child compiles the text only when no code came
        test = ProgramTest(source, needed, code, append_code, self.code_name, self.search_path)
        job, self._spare = start_in_spare(
            self._spare, test, self.limits.for_timeout(timeout), timeout, self.cpu_timeout,
            own_files=frozenset({self.code_name, OUTPUT_NAME}), keep_output=self.keep_output,
        )
        return ExecPending(self, job, None, text.count("\n") + 1)

    def _append_code(self) -> types.CodeType | None:
        if not self.append:
            return None
        if self._appended is None or self._appended[0] != self.append:
            code = compile_candidate(self.append, self.code_name)
            self._appended = (self.append, None if isinstance(code, Run) else code)
        return self._appended[1]

    def close(self) -> None:
        """End the spare child (the end of a reduction)."""
        if self._spare is not None:
            self._spare.discard()
            self._spare = None
        self._statements = None
        self._key = None

    def __del__(self) -> None:  # an oracle dropped without close() must not leave its spare waiting
        try:
            self.close()
        except Exception:  # at interpreter exit, half torn down
            pass


class ExecPending:
    """A candidate running under the exec oracle."""

    def __init__(self, oracle: ExecOracle, job: Job | None, run: Run | None, lines: int) -> None:
        self.oracle = oracle
        self.job = job
        self.started = time.monotonic()
        self._run = run
        self.lines = lines
        """The candidate's number of lines (where its frames end and the appended script's begin)."""

    def done(self) -> bool:
        """Whether the test has ended (reads its report if it is there; never blocks)."""
        return self._run is not None or (self.job is not None and self.job.poll() is not None)

    def ready_fds(self) -> list[int] | None:
        """Descriptors to wait on for the test's end."""
        return [] if self.done() or self.job is None else [self.job.fd]

    def wait(self) -> Verdict:
        if self._run is None:
            assert self.job is not None
            self._run = self.oracle.locate(self.job.wait(), self.lines)
        self.oracle.tests += 1
        self.oracle.seconds += time.monotonic() - self.started
        outcome = self.oracle.classify(self._run)
        if outcome is Outcome.FAIL:
            self.oracle._failed_in(self._run.spent)
        return Verdict(outcome, self._run)

    def cancel(self) -> None:
        if self.job is not None:
            self.job.kill()
