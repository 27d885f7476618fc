"""Command oracles: a command (``--run``), an interestingness script (``--test``),
two commands compared (``--differential``).

Every test runs in the sandbox (:mod:`astreduce.oracles.sandbox`): a fresh
folder holding the candidate under the original file's name, a process
group of its own that is killed on a timeout, limits on CPU, memory, file
size and process count. Output goes to files, never pipes, so a chatty tool
cannot block; only the last 64 KiB of each is read.

A command's run is summed up as a :class:`Signature` — the fatal signal or
the exit status, and the last non-empty line of standard error. Without
classification options, a candidate is FAIL when its signature equals the
original's: the same crash, not merely some crash.
"""

from __future__ import annotations

import errno
import os
import re
import shlex
import shutil
import signal as signals
import subprocess
import sys
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from astreduce.errors import NotReproducibleError, UsageError
from astreduce.oracles import Run, Traits, Verdict, frames_in_text
from astreduce.oracles.confine import die_with_parent
from astreduce.oracles.sandbox import (
    MIN_TIMEOUT,
    Limits,
    ProcessGroupCap,
    kill_group,
    make_workdir,
    pdeathsig_launcher,
    release_workdir,
    wait_exit,
)
from astreduce.outcome import Outcome

_TAIL = 65536
_STDOUT, _STDERR = ".astreduce-stdout", ".astreduce-stderr"


@dataclass(frozen=True)
class Signature:
    """How a command ended: killed by a signal, or its exit status; and its last stderr line."""

    signal: str | None
    exit_code: int | None
    stderr_line: str
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    timed_out: bool = False

    def describe(self) -> str:
        if self.timed_out:
            return "timed out"
        ending = f"killed by {self.signal}" if self.signal else f"exit status {self.exit_code}"
        return f"{ending}, stderr: {self.stderr_line!r}" if self.stderr_line else ending

    def to_run(self) -> Run:
        output = self.stdout + self.stderr  # what it printed (the tails): for --verbose
        if self.timed_out:
            return Run("timeout", seconds=self.seconds, detail="timed out", output=output)
        if self.signal:
            return Run("crash", seconds=self.seconds, detail=self.describe(), message=self.stderr_line, output=output)
        ending = "ok" if self.exit_code == 0 else "exception"
        return Run(
            ending, exception=f"exit {self.exit_code}", message=self.stderr_line, seconds=self.seconds, detail=self.describe(),
            output=output,
        )


#: How a shell or pyenv says that a command does not exist.
_NOT_FOUND = re.compile(r"(?:^|: )(?:command )?not found$")


def _signal_name(number: int) -> str:
    try:
        return signals.Signals(number).name
    except ValueError:
        return f"SIG{number}"


def _tail(path: Path) -> str:
    try:
        with open(path, "rb") as file:
            file.seek(0, os.SEEK_END)
            size = file.tell()
            file.seek(max(0, size - _TAIL))
            return file.read().decode("utf-8", errors="replace")
    except OSError:
        return ""


def last_line(text: str) -> str:
    """The last line of ``text`` with something on it, stripped: what a one-line message quotes."""
    for line in reversed(text.splitlines()):
        if line.strip():
            return line.strip()
    return ""


#: What a gated command's shell runs: it waits for a line on its standard input (the
#: go-ahead), then becomes the command, its standard input from the file named first
#: (``--stdin``) or /dev/null. Closing the pipe instead makes it exit unstarted.
#: Processes kept waiting per command: two, so that two tests started at once (``-j 2``) both find one.
_GATED_AHEAD = 2
_GATE = 'read -r _ || exit 125; f=$1; shift; if [ -n "$f" ]; then exec "$@" <"$f"; fi; exec "$@" </dev/null'


class Process:
    """One command running in its own folder, process group and cgroup.

    A *gated* process (``gated=True``, when ``setpriv`` is there) is started
    ahead of its test: its limits and its cgroup are in place while it waits
    at the gate, and :meth:`release` lets it run. Joining a pids cgroup costs
    about 5 ms a process (cgroup v1 waits for RCU), starting one 1.4 ms:
    gated processes made ahead, off the test's path, save both.
    """

    def __init__(
        self, argv: list[str], workdir: str, timeout: float, limits: Limits, stdin_path: str | None, shell: bool,
        own_files: frozenset[str] = frozenset(), gated: bool = False, env: dict[str, str] | None = None,
    ) -> None:
        self.workdir = workdir
        self.own_files = own_files | {_STDOUT, _STDERR}
        """What the folder may hold for the next test to reuse it (emptied)."""
        self.shell = shell
        self.timeout = timeout
        self.started = time.monotonic()
        self._pidfd: int | None = None
        self.cap = ProcessGroupCap(limits.processes)
        self.out = Path(workdir) / _STDOUT
        self.err = Path(workdir) / _STDERR
        cap = self.cap
        # confinement is applied by the process to itself, between fork and exec: no launcher then
        launcher = pdeathsig_launcher() if not limits.confine else None

        def prepare() -> None:  # runs in the child between fork and exec
            die_with_parent()
            cap.join()
            limits.apply()
            limits.confine_to(workdir)

        self.gated = gated and (launcher is not None or limits.confine)
        if self.gated:
            with open(self.out, "wb") as out, open(self.err, "wb") as err:
                command = argv if not shell else ["/bin/sh", "-c", argv[0]]
                self.popen = subprocess.Popen(
                    [*(launcher or []), "/bin/sh", "-c", _GATE, "sh", stdin_path or "", *command],
                    cwd=workdir, stdin=subprocess.PIPE, stdout=out, stderr=err, start_new_session=True, env=env,
                    preexec_fn=None if launcher else prepare,
                )
            if launcher:
                limits.apply(self.popen.pid)
                cap.join(self.popen.pid)
            self.result: Signature | None = None
            return
        if not shell and launcher is not None:  # it would say "setpriv: failed to execute ...": say it of the program
            program = os.path.join(workdir, argv[0]) if os.sep in argv[0] else shutil.which(argv[0])
            if program is None or not os.path.isfile(program) or not os.access(program, os.X_OK):
                self._cannot_start(argv[0], found=program is not None and os.path.isfile(program), why="Permission denied")
                return
        with open(self.out, "wb") as out, open(self.err, "wb") as err, open(stdin_path or os.devnull, "rb") as inp:
            if launcher is not None:
                # no Python between fork and exec: the limits and the cgroup are set from here,
                # while the launcher is still starting, before the command can start anything
                self.popen = subprocess.Popen(
                    [*launcher, *(argv if not shell else ["/bin/sh", "-c", argv[0]])],
                    cwd=workdir, stdin=inp, stdout=out, stderr=err, start_new_session=True, env=env,
                )
                limits.apply(self.popen.pid)
                cap.join(self.popen.pid)
            else:
                try:
                    self.popen = subprocess.Popen(
                        argv if not shell else argv[0],
                        shell=shell,
                        cwd=workdir,
                        stdin=inp,
                        stdout=out,
                        stderr=err,
                        start_new_session=True,
                        preexec_fn=prepare,
                        env=env,
                    )
                except OSError as error:
                    if shell or error.errno not in (errno.ENOENT, errno.EACCES, errno.ENOEXEC, errno.ENOTDIR):
                        raise
                    self._cannot_start(argv[0], found=error.errno != errno.ENOENT, why=error.strerror or "")
                    return
        self.result = None

    def _cannot_start(self, program: str, *, found: bool, why: str) -> None:
        """End at once as a shell ends a command it cannot start: 127 not found, 126 not executable."""
        said = f"{program}: {why if found else 'command not found'}"
        self.err.write_text(said + "\n")
        self.result = Signature(None, 126 if found else 127, said, stderr=said + "\n")
        release_workdir(self.workdir, self.own_files)

    def release(self, timeout: float, limits: Limits) -> None:
        """Let a gated process run its command now, with these limits and this timeout."""
        assert self.gated and self.popen.stdin is not None
        limits.apply(self.popen.pid)
        self.timeout = timeout
        self.started = time.monotonic()
        try:
            self.popen.stdin.write(b"go\n")
            self.popen.stdin.close()
        except OSError:  # it died at the gate: its wait says how
            pass

    def done(self, timeout: float | None = None) -> bool:
        """Whether the command has ended or run out of time (then :meth:`wait` returns at once)."""
        if self.result is not None or self.popen.returncode is not None:
            return True
        limit = self.timeout if timeout is None else timeout
        return self.popen.poll() is not None or time.monotonic() >= self.started + limit

    def ready_fd(self) -> int | None:
        """A descriptor readable once the command has ended (a pidfd), or None."""
        if self._pidfd is None and self.result is None:
            try:
                self._pidfd = os.pidfd_open(self.popen.pid)
            except (AttributeError, OSError):
                return None
        return self._pidfd

    def _close_pidfd(self) -> None:
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None

    def wait(self, timeout: float | None = None) -> Signature:
        if self.result is not None:
            return self.result
        self._close_pidfd()
        limit = self.timeout if timeout is None else timeout
        remaining = max(0.0, self.started + limit - time.monotonic())
        timed_out = not wait_exit(self.popen, remaining)
        seconds = time.monotonic() - self.started
        self._stop()
        code = self.popen.returncode
        if self.shell and code is not None and 128 < code < 128 + 65:
            code = -(code - 128)  # the shell reports a child killed by signal N as 128+N
        stderr = _tail(self.err)
        self.result = Signature(
            signal=_signal_name(-code) if code is not None and code < 0 and not timed_out else None,
            exit_code=code if code is not None and code >= 0 else None,
            stderr_line=last_line(stderr),
            stdout=_tail(self.out),
            stderr=stderr,
            seconds=seconds,
            timed_out=timed_out,
        )
        release_workdir(self.workdir, self.own_files)
        return self.result

    def kill(self) -> None:
        self._close_pidfd()
        if self.result is None:
            self._stop()
            self.result = Signature(None, None, "", timed_out=True)
            release_workdir(self.workdir, self.own_files)

    def _stop(self) -> None:
        if self.popen.stdin is not None and not self.popen.stdin.closed:
            try:
                self.popen.stdin.close()
            except OSError:
                pass
        kill_group(self.popen.pid)
        try:
            self.popen.wait(5)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL does not fail
            pass
        self.cap.kill_all()  # after the wait: an unreaped child would still count as a member


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


class ProcessesPending:
    """A test of one or more processes (one per command); it ends when they all have, and
    cancelling kills them all. ``wait_limit``: the seconds after which a process counts as ended
    (it ran out of time; None: each process's own limit)."""

    def __init__(self, processes: list[Process], wait_limit: float | None = None) -> None:
        self.processes = processes
        self.wait_limit = wait_limit

    def done(self) -> bool:
        return all(p.done(self.wait_limit) for p in self.processes)

    def ready_fds(self) -> list[int] | None:
        """Descriptors to wait on for the test's end (None: cannot tell, wait() instead)."""
        fds = [p.ready_fd() for p in self.processes if not p.done(self.wait_limit)]
        return None if None in fds else [fd for fd in fds if fd is not None]

    def cancel(self) -> None:
        for process in self.processes:
            process.kill()


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
    tests: int = 0
    seconds: float = 0.0
    raised_at: tuple[str, int] | None = None
    """Where the original failed, when its standard error shows a Python traceback through the candidate."""
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
        return Traits(unparsable=True, target=self.target.describe() if self.target is not None else "", raised_at=self.raised_at)

    @property
    def wait_limit(self) -> float:
        if self.criteria.hang is not None:
            return self.criteria.hang
        return self.timeout if self.timeout is not None else 600.0

    def start(self, text: str) -> _CommandPending:
        data = self.encode(text) if callable(self.encode) else text.encode("utf-8", errors="surrogateescape")
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

    def close(self) -> None:
        """Stop the processes started ahead (they never ran their command)."""
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
        pending = self.start(text)
        signatures = [p.wait() for p in pending.processes]
        verdict = self.located(self.adopt_original(signatures, timeout), signatures[0], pending.processes[0].workdir, pending.lines)
        self.raised_at = verdict.run.raised_at
        self.tests += 1
        return verdict
