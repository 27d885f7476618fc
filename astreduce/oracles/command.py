"""Command oracles: a command (``--run``), an interestingness script (``--test``),
two commands compared (``--differential``).

Every test is a process (:mod:`astreduce.run.process`) in the sandbox: a
fresh folder holding the candidate under the original file's name, a
process group of its own that is killed on a timeout, limits on CPU,
memory, file size and process count.

A command's run is summed up as a :class:`Signature` — the fatal signal or
the exit status, and the last non-empty line of standard error. Without
classification options, a candidate is FAIL when its signature equals the
original's: the same crash, not merely some crash.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from astreduce.errors import NotReproducibleError, UsageError
from astreduce.oracles import Traits, Verdict
from astreduce.run import Run, frames_in_text
from astreduce.run.forked_tree import ForkedTree, preload_imports
from astreduce.run.process import Process, ProcessesPending, Signature
from astreduce.run.spare import Job
from astreduce.run.sandbox import (
    MIN_TIMEOUT,
    Limits,
    make_workdir,
    pdeathsig_launcher,
)
from astreduce.outcome import Outcome



#: How a shell or pyenv says that a command does not exist.
_NOT_FOUND = re.compile(r"(?:^|: )(?:command )?not found$")


#: Processes kept waiting per command: two, so that two tests started at once (``-j 2``) both find one.
_GATED_AHEAD = 2


def script_argv(script: str) -> list[str]:
    """How to run an interestingness script: directly when executable, a ``.py`` one with this Python.

    Raises:
        UsageError: no such file, or a script that is neither executable nor Python (guessing its shell would
            run a bash script under ``sh``, or a Perl one).
    """
    path = os.path.abspath(script)
    if not os.path.isfile(path):
        raise UsageError(f"--test {script}: no such file")
    if os.access(path, os.X_OK):
        return [path]
    if path.endswith(".py"):
        return [sys.executable, path]
    raise UsageError(f"--test {script}: not executable; make it so (chmod +x {script}) and give it a #! line")


_SHELL_SYNTAX = re.compile(r"[|&;<>()$`*?~\n]")


def command_argv(template: str, **values: str) -> tuple[list[str], bool]:
    """The argv for a ``--run`` command: run directly when it is a plain command line
    (so a crash is seen as the tool's own signal), through ``/bin/sh`` when it uses shell syntax."""
    if _SHELL_SYNTAX.search(template) is None:
        try:
            words = shlex.split(template)
        except ValueError as error:
            raise UsageError(f"cannot read command {template!r}: {error}") from None
        return [_fill(word, values, template) for word in words], False
    return [substitute(template, **values)], True


def _fill(word: str, values: dict[str, str], template: str) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            raise UsageError(f"unknown placeholder {{{name}}} in command {template!r}")
        return values[name]

    return re.sub(r"\{(\w+)\}", replace, word)


def substitute(template: str, **values: str) -> str:
    """Fill ``{file}``, ``{python}``, ... in a shell command, each value shell-quoted."""
    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            raise UsageError(f"unknown placeholder {{{name}}} in command {template!r}; known: {', '.join('{' + k + '}' for k in values)}")
        return shlex.quote(values[name])

    return re.sub(r"\{(\w+)\}", replace, template)


@dataclass
class Criteria:
    """What makes a command's run interesting; all given criteria must hold."""

    signal: str | None = None
    exit_code: int | None = None
    stderr: str | None = None
    stdout: str | None = None
    hang: float | None = None

    @property
    def given(self) -> bool:
        return any(v is not None for v in (self.signal, self.exit_code, self.stderr, self.stdout, self.hang))

    def holds(self, sig: Signature) -> bool:
        if self.hang is not None:
            return sig.timed_out
        if sig.timed_out:
            return False
        if self.signal is not None:
            wanted = self.signal.upper()
            if sig.signal is None or (wanted != "ANY" and sig.signal not in (wanted, "SIG" + wanted)):
                return False
        if self.exit_code is not None and sig.exit_code != self.exit_code:
            return False
        if self.stderr is not None and re.search(self.stderr, sig.stderr, re.MULTILINE) is None:
            return False
        if self.stdout is not None and re.search(self.stdout, sig.stdout, re.MULTILINE) is None:
            return False
        return True

    def described(self, sig: Signature) -> str:
        """What of ``sig``, a run these criteria hold for, they look at: its signal, exit status, the lines their
        patterns matched, its hang (a report's ``target``)."""
        if self.hang is not None:
            said = [f"hangs (over {self.hang:g} s)"]
        else:
            said = [f"killed by {sig.signal}" if sig.signal else f"exit status {sig.exit_code}"]
        for stream, pattern, text in (("stderr", self.stderr, sig.stderr), ("stdout", self.stdout, sig.stdout)):
            found = re.search(pattern, text, re.MULTILINE) if pattern is not None else None
            if found is not None:
                start = text.rfind("\n", 0, found.start()) + 1
                end = text.find("\n", found.end())
                said.append(f"{stream}: {text[start:end if end >= 0 else len(text)].strip()!r}")
        return ", ".join(said)


class _CommandPending(ProcessesPending):
    def __init__(self, oracle: CommandOracle, processes: list[Process], lines: int) -> None:
        super().__init__(processes, oracle.wait_limit)
        self.oracle = oracle
        self.started = time.monotonic()
        self.lines = lines

    def wait(self) -> Verdict:
        signatures = [p.wait(self.oracle.wait_limit) for p in self.processes]
        self.oracle.tests += 1
        self.oracle.seconds += time.monotonic() - self.started
        return self.oracle.located(self.oracle.classify(signatures), signatures[0], self.processes[0].workdir, self.lines)


class JobPending:
    """A test running in a child forked ahead (a :class:`~astreduce.run.spare.Job`), as the search waits for it;
    :meth:`wait` is the oracle's."""

    def __init__(self, job: Job) -> None:
        self.job = job

    def done(self) -> bool:
        return self.job.poll() is not None

    def ready_fds(self) -> list[int] | None:
        return [] if self.done() else [self.job.fd]

    def cancel(self) -> None:
        self.job.kill()


class _ForkedScriptPending(JobPending):
    """A ``--test`` script run in a forked child on the candidate: the run comes as the exec oracle reports it,
    judged as the script's process would be (its exit status)."""

    def __init__(self, oracle: CommandOracle, job: Job, lines: int) -> None:
        super().__init__(job)
        self.oracle = oracle
        self.lines = lines
        self.started = time.monotonic()

    def wait(self) -> Verdict:
        run = self.job.wait()
        self.oracle.tests += 1
        self.oracle.seconds += time.monotonic() - self.started
        judged = self.oracle.classify([forked_signature(run, self.job.exit_status)])
        name = os.path.basename(self.oracle.filename)
        # the place: the script's own frames through the candidate (it ran it in its process), else the last
        # traceback it printed (it ran the candidate as a process of its own), as for a plain run
        frames = run.frames if any(path.endswith(name) for path, _ in run.frames) else frames_in_text(run.output)
        located = replace(judged.run, frames=frames).located(lambda path: self.lines if path == name else None, self.job.workdir)
        if located.raised_at is not None:
            located = replace(located, raised_at=(self.oracle.filename, located.raised_at[1]))
        return Verdict(judged.outcome, located)


@dataclass
class CommandOracle:
    """Runs a command on the candidate; ``--run``, ``--test`` and ``--differential`` in one.

    Args:
        commands: one command (``--run``; ``--test`` is a command too), or
            two for ``--differential``.
        filename: the original file's name: the candidate is written under it.
        criteria: what makes a run interesting (``--run`` only).
        script: the commands are interestingness scripts: exit 0 = FAIL.
        stdin: feed the candidate on standard input instead of ``{file}``.
        python: what ``{python}`` stands for.
    """

    commands: list[str]
    filename: str = "candidate.py"
    criteria: Criteria = field(default_factory=Criteria)
    script: bool = False
    stdin: bool = False
    python: str = sys.executable
    timeout: float | None = None
    limits: Limits = field(default_factory=Limits)
    encode: object = None
    """Callable turning candidate text into the bytes written to disk (the input's encoding)."""
    target: Signature | None = None
    matched: str = ""
    """What the original's run showed of what the oracle looks for (criteria, a script, two commands): the
    report's ``target`` when no signature is matched."""
    tests: int = 0
    seconds: float = 0.0
    raised_at: tuple[str, int] | None = None
    """Where the original failed, when its standard error shows a Python traceback through the candidate."""
    forked: bool = True
    """Under astreduce's own interpreter, a ``--test`` script that is Python runs in a child forked ahead
    (:mod:`~astreduce.run.forked_tree`) instead of a new interpreter, when the original ends the same both ways."""
    _forked: ForkedTree | None = field(default=None, repr=False, compare=False)
    _gated: dict[int, deque[Future[tuple[Process, str]]]] | None = field(default=None, repr=False, compare=False)
    """Per command, the next tests' processes, started ahead and waiting at their gates."""
    _starter: ThreadPoolExecutor | None = field(default=None, repr=False, compare=False)

    @property
    def differential(self) -> bool:
        return len(self.commands) == 2

    @property
    def identity(self) -> str:
        return f"command|{self.commands}|{self.criteria}|{self.script}|{self.stdin}|{self.python}|{self.target}"

    @property
    def traits(self) -> Traits:
        """A command may run something that is not this file as a program (a formatter's input, a fuzzer's
        crash): nothing is traced, and a text Python rejects may be what crashes the tool."""
        target = self.target.describe() if self.target is not None else self.matched
        return Traits(unparsable=True, target=target, raised_at=self.raised_at)

    @property
    def wait_limit(self) -> float:
        if self.criteria.hang is not None:
            return self.criteria.hang
        return self.timeout if self.timeout is not None else 600.0

    def forkable_script(self) -> str | None:
        """The ``--test`` script, when a forked child of this interpreter runs it as ``python SCRIPT`` would (a
        Python script that is not executable; one, not ``--differential``); None for any other command."""
        if not self.script or len(self.commands) != 1:
            return None
        argv = script_argv(self.commands[0])
        return argv[1] if argv[:1] == [sys.executable] and len(argv) == 2 else None

    def start(self, text: str) -> _CommandPending | _ForkedScriptPending:
        if self._forked is not None:
            script = self.forkable_script()
            assert script is not None
            name = os.path.basename(self.filename)
            job = self._forked.start(
                {name: text}, script, self.wait_limit, argv=(os.path.join("{dir}", name),), keep_output=True, compiled=False,
            )
            return _ForkedScriptPending(self, job, text.count("\n") + 1)
        return self._start_processes(text)

    def _start_processes(self, text: str) -> _CommandPending:
        data = self._bytes(text)
        limits = self.limits.for_timeout(self.wait_limit)
        processes = []
        for index in range(len(self.commands)):
            ready = self._take_gated(index)
            if ready is not None:
                process, path = ready
                with open(path, "wb") as file:
                    file.write(data)
                process.release(self.wait_limit, limits)
            else:
                process, path = self._process(index, limits, gated=False, data=data)
            processes.append(process)
        self._prepare_gated()
        return _CommandPending(self, processes, text.count("\n") + 1)

    def _process(self, index: int, limits: Limits, gated: bool, data: bytes | None = None) -> tuple[Process, str]:
        """A process for command ``index`` in a new test folder; gated ones wait for their candidate."""
        workdir = make_workdir()
        path = os.path.join(workdir, os.path.basename(self.filename))
        if data is not None:
            with open(path, "wb") as file:
                file.write(data)
        if self.script:
            argv, shell = [*script_argv(self.commands[index]), path], False
        else:
            argv, shell = command_argv(self.commands[index], file=path, python=self.python, dir=workdir)
        process = Process(
            argv, workdir, self.wait_limit, limits, path if self.stdin else None, shell,
            frozenset({os.path.basename(path)}), gated=gated,
        )
        return process, path

    def _take_gated(self, index: int) -> tuple[Process, str] | None:
        ready = self._gated.get(index) if self._gated is not None else None
        if not ready:
            return None
        future = ready.popleft()
        try:
            return future.result()
        except Exception:  # could not start one ahead: start it now, the usual way
            return None

    def _prepare_gated(self) -> None:
        """Start the next test's processes ahead, in a thread, while this test runs."""
        if self._gated is None:
            if pdeathsig_launcher() is None and not self.limits.confine:
                return
            self._gated = {}
            self._starter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="astreduce-gate")
        assert self._starter is not None
        limits = self.limits.for_timeout(self.wait_limit)
        for index in range(len(self.commands)):
            ready = self._gated.setdefault(index, deque())
            while len(ready) < _GATED_AHEAD:
                ready.append(self._starter.submit(self._process, index, limits, True))

    def _bytes(self, text: str) -> bytes:
        return self.encode(text) if callable(self.encode) else text.encode("utf-8", errors="surrogateescape")

    def close(self) -> None:
        """Stop the processes started ahead (they never ran their command), and the spares."""
        if self._forked is not None:
            self._forked.close()
            self._forked = None
        if self._gated is None or self._starter is None:
            return
        for future in (f for ready in self._gated.values() for f in ready):
            try:
                future.result()[0].kill()
            except Exception:
                pass
        self._gated.clear()
        self._starter.shutdown(wait=True)
        self._gated, self._starter = None, None

    def judge(self, text: str) -> Verdict:
        return self.start(text).wait()

    def located(self, verdict: Verdict, signature: Signature, workdir: str, lines: int) -> Verdict:
        """``verdict`` with where it raised: the innermost frame through the candidate (of ``lines`` lines) of the
        last Python traceback on the command's standard error, if any (one command; not ``--differential``)."""
        if self.differential:
            return verdict
        name = os.path.basename(self.filename)
        run = replace(verdict.run, frames=frames_in_text(signature.stderr)).located(
            lambda path: lines if path == name else None, workdir
        )
        if run.raised_at is not None:
            run = replace(run, raised_at=(self.filename, run.raised_at[1]))
        return Verdict(verdict.outcome, run)

    def classify(self, signatures: list[Signature]) -> Verdict:
        first = signatures[0]
        run = first.to_run()
        if self.differential:
            a, b = signatures
            if a.timed_out or b.timed_out:
                return Verdict(Outcome.UNRESOLVED, run)
            differs = a.stdout != b.stdout or a.exit_code != b.exit_code or a.signal != b.signal
            detail = f"{a.describe()} vs {b.describe()}" + (", stdout differs" if a.stdout != b.stdout else "")
            return Verdict(Outcome.FAIL if differs else Outcome.PASS, Run(run.ending, detail=detail, seconds=run.seconds))
        if self.script:
            if first.timed_out:
                return Verdict(Outcome.UNRESOLVED, run)
            return Verdict(Outcome.FAIL if first.exit_code == 0 else Outcome.PASS, run)
        if self.criteria.given:
            if self.criteria.holds(first):
                return Verdict(Outcome.FAIL, run)
            return Verdict(Outcome.UNRESOLVED if first.timed_out or first.signal else Outcome.PASS, run)
        if first.timed_out:
            return Verdict(Outcome.UNRESOLVED, run)
        target = self.target
        if target is not None and (first.signal, first.exit_code, first.stderr_line) == (
            target.signal,
            target.exit_code,
            target.stderr_line,
        ):
            return Verdict(Outcome.FAIL, run)
        if first.signal is None and first.exit_code == 0:
            return Verdict(Outcome.PASS, run)
        return Verdict(Outcome.UNRESOLVED, run)

    def adopt_original(
        self, signatures: list[Signature], timeout: float | None, fails_not: str = "input does not reproduce", job: str = "reduce"
    ) -> Verdict:
        """Take the original's runs: the per-test timeout (unless given), the signature to match
        (without criteria), and its verdict, which must be FAIL (``fails_not`` and ``job`` word the error).

        Raises:
            NotReproducibleError: the original is not interesting.
        """
        self._require_runnable(signatures)
        first = signatures[0]
        if timeout is None:
            self.timeout = max(MIN_TIMEOUT, 10 * max(s.seconds for s in signatures))
        if not (self.script or self.differential or self.criteria.given):
            if first.timed_out:
                raise NotReproducibleError(
                    f"{fails_not}: the command timed out after {first.seconds:.1f} s; use --hang to {job} a hang"
                )
            if first.signal is None and first.exit_code == 0:
                raise NotReproducibleError(
                    f"{fails_not}: the command succeeded (exit status 0); "
                    "say what to look for with --signal, --exit-code, --stderr or --stdout"
                )
            self.target = Signature(first.signal, first.exit_code, first.stderr_line)
        elif self.script:
            self.matched = "the test script exits 0"
        elif self.differential:
            self.matched = f"the two commands differ ({' / '.join(s.describe() for s in signatures)})"
        else:
            self.matched = self.criteria.described(first)
        verdict = self.classify(signatures)
        if verdict.outcome is not Outcome.FAIL:
            described = " / ".join(s.describe() for s in signatures)
            raise NotReproducibleError(f"{fails_not}: the oracle says {verdict.outcome} ({described})")
        return verdict

    def _require_runnable(self, signatures: list[Signature]) -> None:
        """Refuse a command the shell could not run (exit 126 or 127, "command not found").

        Such a command ends the same way on every candidate, or differs from
        the other command of ``--differential`` on every candidate, so the
        reduction would end in an empty file with exit 0. Unless the user asked
        for that exit status, it is a usage error naming the command.
        """
        for command, signature in zip(self.commands, signatures):
            if signature.signal is not None or signature.exit_code in (None, 0, self.criteria.exit_code):
                continue
            if signature.exit_code in (126, 127) or _NOT_FOUND.search(signature.stderr_line):
                said = next((line.strip() for line in signature.stderr.splitlines() if line.strip()), signature.stderr_line)
                detail = f": {said}" if said else ""  # the first line: pyenv explains itself below it
                raise UsageError(
                    f"the command {command!r} cannot run (exit status {signature.exit_code}{detail}); "
                    "check that it is installed and on PATH, or executable"
                )

    def calibrate(self, text: str, timeout: float | None = None) -> Verdict:
        """Run the original once: record its signature and set the per-test timeout.

        Raises:
            NotReproducibleError: the original is not interesting.
        """
        self.timeout = timeout if timeout is not None else 600.0
        if self._forked is not None:  # calibrated again (isolate, batch): the plain run first, as the first time
            self._forked.close()
            self._forked = None
        pending = self._start_processes(text)
        signatures = [p.wait() for p in pending.processes]
        verdict = self.located(self.adopt_original(signatures, timeout), signatures[0], pending.processes[0].workdir, pending.lines)
        self.raised_at = verdict.run.raised_at
        self.tests += 1
        self._fork_when_same(text, verdict)
        return verdict

    def _fork_when_same(self, text: str, verdict: Verdict) -> None:
        """Run the original once more in a forked child (:meth:`forkable_script`), with the script's leading imports
        made once by the fork server; the tests run that way from now on if it ends as the plain run did (the
        same verdict, exit status and place), as new processes otherwise."""
        script = self.forkable_script()
        if not self.forked or script is None or self.stdin or self._bytes(text) != text.encode("utf-8", errors="surrogateescape"):
            return  # the child writes the candidate as UTF-8
        try:
            with open(script, encoding="utf-8", errors="replace") as file:
                program = file.read()
        except OSError:
            return
        preload_imports({os.path.basename(self.filename): ""}, program)  # the candidate is never parsed here: it may crash the parser
        self._forked = ForkedTree(self.limits)
        again = self.start(text).wait()
        self.tests -= 1  # the original once more, another way
        self.seconds -= again.run.seconds
        if (again.outcome, again.run.ending, again.run.exception, again.run.raised_at) != (
            verdict.outcome, verdict.run.ending, verdict.run.exception, verdict.run.raised_at,
        ):
            self._forked.close()
            self._forked = None


def forked_signature(run: Run, status: int | None) -> Signature:
    """A script's forked run as the command oracle sees a process end."""
    if run.ending == "timeout":
        return Signature(None, None, "", seconds=run.seconds, timed_out=True)
    if run.ending == "crash" and "killed by " in run.detail:
        return Signature(run.detail.split("killed by ", 1)[1], None, "", seconds=run.seconds)
    return Signature(None, status if status is not None else 1, _last_stderr_line(run), seconds=run.seconds)


def _last_stderr_line(run: Run) -> str:
    """The last line ``python SCRIPT`` would write to standard error after this run: a traceback's, a sys.exit text."""
    if run.ending == "ok":
        return ""
    if run.exception == "SystemExit":
        return "" if run.message in ("", "None") or run.message.lstrip("-").isdigit() else run.message
    if run.ending in ("exception", "syntax"):
        return f"{run.exception}: {run.message}" if run.message else run.exception
    return ""
