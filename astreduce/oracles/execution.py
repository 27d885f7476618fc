"""The exec oracle: run a candidate as ``__main__`` in a forked child, match its exception.

The child compiles and runs the candidate — never astreduce's own process —
in the sandbox (:mod:`astreduce.oracles.sandbox`), with standard input
empty and output captured, and reports how the run ended through a pipe as
one line of JSON. The parent compares the exception with the target:

* the target exception (by type and message, or as ``--match`` says) → FAIL;
* no exception → PASS;
* anything else — a syntax error, another exception, a timeout, a crash,
  an exit without a report — → UNRESOLVED.

Forking costs about 2.5 ms where starting an interpreter costs 14 ms
(DESIGN.md), and the child starts with every module astreduce has imported.
Even that fork is off a test's path: each test's child is forked ahead, a
*spare* waiting for its candidate while the test before it runs (see
:class:`Spare`). The appended test script is compiled once, not with every
candidate.
"""

from __future__ import annotations

import gc
import json
import marshal
import os
import select
import shutil
import signal
import sys
import time
import types
import warnings
from collections import deque
from dataclasses import astuple, dataclass, field, replace
from pathlib import Path
from typing import Any

from astreduce.oracles import Run, Target, Traits, Verdict
from astreduce.oracles._worker_main import (
    crash_report,
    flush_output,
    run_main,
    syntax_message,
    syntax_report,
)
from astreduce.oracles.confine import die_with_parent
from astreduce.oracles.forkserver import ForkServer, Reply, forget_server, fork_server
from astreduce.oracles.sandbox import (
    MIN_CPU_TIMEOUT,
    MIN_TIMEOUT,
    EndedAtExit,
    Limits,
    ProcessGroupCap,
    enter_test_folder,
    kill_group,
    make_workdir,
    reap,
    release_workdir,
    remove_workdir,
)
from astreduce.oracles.trace import tracer_under
from astreduce.outcome import Outcome

#: Texts shorter than this are compiled in the parent first: a syntax error then costs no fork.
PRECOMPILE_LIMIT = 20_000


class Job:
    """A candidate running in a forked child; wait for it or kill it."""

    def __init__(
        self, pid: int, read_fd: int, workdir: str, timeout: float, cap: ProcessGroupCap, cpu_timeout: float | None = None
    ) -> None:
        self.pid = pid
        self.cap = cap
        self.fd = read_fd
        self.workdir = workdir
        self.started = time.monotonic()
        self.timeout = timeout
        self.cpu_timeout = cpu_timeout if cpu_timeout is not None and cpu_timeout < timeout else None
        self.own_files: frozenset[str] = frozenset()
        """What the child writes into its folder itself: the folder may serve again when nothing else is left."""
        self.keep_output = False
        """Read the end of what the test printed into its run (``--verbose``)."""
        self.server: ForkServer | None = None
        """The fork server whose child runs the test (it knows how the child exited)."""
        self.exit_status: int | None = None
        """For a script run in the child (``forked_tree``): the status ``python SCRIPT`` would exit with."""
        # with a CPU budget, the first look is when the child could have spent it
        self.deadline = self.started + (self.cpu_timeout if self.cpu_timeout is not None else timeout)
        self._buffer = b""
        self._run: Run | None = None

    def fileno(self) -> int:
        return self.fd

    @property
    def done(self) -> bool:
        return self._run is not None

    def poll(self) -> Run | None:
        """Read what is available without blocking; the run once it has ended."""
        if self._run is not None:
            return self._run
        readable, _, _ = select.select([self.fd], [], [], 0)
        if readable:
            self._read()
        elif time.monotonic() >= self.deadline:
            self._check_overrun()
        return self._run

    def wait(self) -> Run:
        while self._run is None:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                self._check_overrun()
                continue
            readable, _, _ = select.select([self.fd], [], [], remaining)
            if readable:
                self._read()
        return self._run

    def _check_overrun(self) -> None:
        """At the deadline: end the run as a timeout, or move the deadline on.

        The CPU budget ends a busy hang (a loop that lost its exit) as soon
        as the child has burnt it, while a child that merely waited for a
        core on a loaded machine gets the rest of its wall-clock time.
        """
        now = time.monotonic()
        wall_end = self.started + self.timeout
        if self.cpu_timeout is not None and now < wall_end:
            used = child_cpu_seconds(self.pid)
            if used is None:  # no /proc: the wall-clock limit alone
                self.deadline = wall_end
                return
            if used < self.cpu_timeout:
                self.deadline = min(wall_end, now + max(0.02, self.cpu_timeout - used))
                return
            detail = f"used {used:.2g} s of CPU (budget {self.cpu_timeout:g} s)"
        else:
            detail = f"ran over {self.timeout:g} s"
        self._finish(Run("timeout", seconds=now - self.started, detail=detail))

    def kill(self) -> None:
        """Stop the child and everything it started; the job ends UNRESOLVED."""
        if self._run is None:
            self._finish(Run("crash", detail="cancelled"))

    def _read(self) -> None:
        chunk = os.read(self.fd, 65536)
        if chunk:
            self._buffer += chunk
            if not self._buffer.endswith(b"\n"):
                return
            # the report is complete: a grandchild that inherited the pipe
            # may keep it open, so do not wait for the end of the file
        seconds = time.monotonic() - self.started
        run, self.exit_status = _decode_report(self._buffer, seconds)
        self._finish(run, eof=not chunk)

    def _wait_for_exit(self) -> int:
        """The child's wait status, once it has exited (from the fork server that forked it, if one did)."""
        if self.server is not None:
            try:
                return self.server.status(self.pid)
            except OSError:  # the server died, and its children with it
                forget_server()
                return 0
        try:
            return os.waitpid(self.pid, 0)[1]
        except ChildProcessError:  # reaped already (an interrupt arrived after the wait)
            return 0

    def _finish(self, run: Run, eof: bool = False) -> None:
        if self._run is not None:
            return
        kill_group(self.pid)
        status = 0
        dying = run.detail == "cancelled" and self.cap.unused()
        if run.spawned is False or dying:
            # the test started no process: nothing else to wait for or kill (waiting
            # for a cancelled child to die cost -j 2 on stdlib_argparse 12 ms a test)
            reap(self.pid)
            self.cap.release_unused()
        else:
            status = self._wait_for_exit()
            self.cap.kill_all()  # after the wait: an unreaped child would still count as a member
        if eof and run.ending == "crash" and not run.detail:
            if os.WIFSIGNALED(status):
                run = Run("crash", seconds=run.seconds, detail=f"killed by {signal.Signals(os.WTERMSIG(status)).name}")
            else:
                run = Run("crash", seconds=run.seconds, detail=f"exited with status {os.waitstatus_to_exitcode(status)} without a report")
        if self.keep_output:
            run = replace(run, output=_output_tail(os.path.join(self.workdir, OUTPUT_NAME)))
        self._run = run  # before the cleanup: an interrupt there must not make us wait twice
        try:
            os.close(self.fd)
        except OSError:
            pass
        if dying:  # it may not be dead yet: its folder serves no other test
            remove_workdir(self.workdir)
        else:
            release_workdir(self.workdir, self.own_files)


def _output_tail(path: str, limit: int = 8192) -> str:
    """The end of a file a test wrote its output to ('' when there is none)."""
    try:
        with open(path, "rb") as file:
            file.seek(0, os.SEEK_END)
            file.seek(max(0, file.tell() - limit))
            return file.read().decode("utf-8", errors="replace")
    except OSError:
        return ""


def child_cpu_seconds(pid: int) -> float | None:
    """User plus system CPU seconds a running process has used (``/proc``), or ``None``."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()
        return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS
    except (OSError, ValueError, IndexError):
        return None


_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _decode_report(data: bytes, seconds: float) -> tuple[Run, int | None]:
    """The run a child reported, and the status a script run would have exited with (see ``forked_tree``)."""
    try:
        report = json.loads(data.decode("utf-8"))
        run = Run(
            ending=report["ending"],
            exception=report.get("exception", ""),
            message=report.get("message", ""),
            frame=report.get("frame", ""),
            seconds=seconds,
            spawned=bool(report.get("spawned", True)),
        )
        status = report.get("exit")
        return run, status if isinstance(status, int) else None
    except (ValueError, KeyError, UnicodeDecodeError):
        return Run("crash", seconds=seconds), None


class Spare:
    """A child forked ahead of its test, ready in its folder and waiting for the candidate on a pipe.

    Forking this process costs 2.3 ms (stdlib_argparse, one test at a time:
    22 s of 210), and a child's setup (its folder, output files, limits,
    warning filters, confinement) 1.5 ms more. Made right after a test
    starts, the next test's child does all that while the test before it
    runs on the other core; its own test then begins with a write to a pipe.
    The spare puts itself in its own process group before it waits. It
    leaves when its pipe closes unused (astreduce closed it, or died, even by
    ``kill -9``). A spare of the fork server confines itself before it waits
    (Landlock and the read-only view cost 0.9 ms a test) and takes the
    parent-death signal; the server removes its folder if it is left
    waiting. One forked here (no server serves) confines itself once its
    test came, and removes its own folder when it is left waiting.
    """

    def __init__(self, limits: Limits) -> None:
        self.workdir = make_workdir()
        self.limits = limits
        self.cap = ProcessGroupCap(limits.processes)
        """Its test's pids cgroup, known before it waits: a confined spare may write only this one's members."""
        cgroup = None if self.cap.path is None else str(self.cap.path)
        sys.stdout.flush()
        sys.stderr.flush()
        self.server: ForkServer | None = None
        """The fork server whose child this is (None: forked here, when no server could serve)."""
        try:
            fork_server(_served_spare_main, _prepare_server)  # started before the pipes, which are not the server's
        except OSError:
            pass
        command_read, self.command_fd = os.pipe()
        self.report_fd, report_write = os.pipe()
        self._pid: int | None = None
        self._reply: Reply | None = None
        for _ in range(2):  # a server that died (a candidate without confinement may kill it) is replaced
            try:
                self.server = fork_server(_served_spare_main, _prepare_server)
                self._reply = self.server.spawn(command_read, report_write, self.workdir, (astuple(limits), cgroup))
                break
            except OSError:
                forget_server()
                self.server = None
        else:  # no server serves: fork here
            self._pid = os.fork()
            if self._pid == 0:  # the child: never returns
                os.close(self.command_fd)
                os.close(self.report_fd)
                _spare_main(command_read, report_write, self.workdir, limits, cgroup)
            try:
                os.setpgid(self._pid, self._pid)  # also here: a kill of its group must not find no group
            except OSError:
                pass
        os.close(command_read)
        os.close(report_write)
        _waiting.add(self)

    @property
    def pid(self) -> int:
        """The spare's pid (from the fork server's reply, read the first time it is wanted). Raises
        OSError when the server died before it answered."""
        if self._pid is None:
            assert self.server is not None and self._reply is not None
            self._pid = self.server.answer(self._reply)
        return self._pid

    def send(self, message: bytes) -> bool:
        """Hand the spare its test; False when it is gone (then it is discarded)."""
        try:
            _ = self.pid  # forked, or the server that was to fork it is gone (OSError)
            data = memoryview(len(message).to_bytes(8, "little") + message)
            while data:
                data = data[os.write(self.command_fd, data) :]
        except OSError:  # it died waiting (killed from outside)
            self.discard()
            return False
        os.close(self.command_fd)
        _waiting.discard(self)
        return True

    def discard(self) -> None:
        """End an unused spare: it exits on its own when its pipe closes; the kill makes sure."""
        for fd in (self.command_fd, self.report_fd):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            pid = self.pid
        except OSError:  # its server is gone, and the spare with it
            pid = None
        if pid is not None:
            kill_group(pid)
            reap(pid)
        remove_workdir(self.workdir)
        self.cap.release_unused()  # a waiting spare started nothing
        _waiting.discard(self)


def start_in_spare(
    spare: Spare | None, payload: tuple[object, ...], limits: Limits, timeout: float, cpu_timeout: float | None,
) -> tuple[Job, Spare]:
    """Hand a test (``payload``, then the limits when they differ from the spare's) to ``spare`` (a new one
    when it is gone, or confined otherwise): its job, and the next test's spare, made ready while it runs."""
    while True:
        if spare is not None and spare.limits.confinement() != limits.confinement():
            spare.discard()
            spare = None
        if spare is None:
            spare = Spare(limits)
        changed = None if limits == spare.limits else astuple(limits)
        message = marshal.dumps((*payload, changed))  # type: ignore[arg-type]  # str, code objects, their dicts
        if spare.send(message):
            break
        spare = None
    job = Job(spare.pid, spare.report_fd, spare.workdir, timeout, spare.cap, cpu_timeout)
    job.server = spare.server
    return job, Spare(limits)


#: Spares not yet handed a test: discarded at exit, so that none leaves its folder behind.
_waiting: EndedAtExit[Spare] = EndedAtExit(Spare.discard)


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
    _compiled: dict[str, types.CodeType] = field(default_factory=dict, init=False, repr=False, compare=False)
    """Candidates that :meth:`compiles` compiled, for their test to use."""
    _calibrated_cpu: float | None = field(default=None, init=False, repr=False, compare=False)
    _recent_fails: deque[float] = field(default_factory=lambda: deque(maxlen=8), init=False, repr=False, compare=False)

    def _failed_in(self, seconds: float) -> None:
        """Tighten the CPU budget to 10x the slowest of the last FAILing runs (never above the calibrated one).

        The original's run includes compiling all of it: on stdlib_argparse
        (50 ms) its budget stayed 0.5 s while the reduced programs that
        reproduce ran in 11 ms, and 79 candidates that loop forever cost
        39 s of its 205. A reproducing program rarely needs ten times the
        CPU of the last ones that reproduced; one that does is UNRESOLVED.
        """
        if self._calibrated_cpu is None:
            return
        self._recent_fails.append(seconds)
        self.cpu_timeout = min(self._calibrated_cpu, max(MIN_CPU_TIMEOUT, 10 * max(self._recent_fails)))

    @property
    def identity(self) -> str:
        target = self.target
        described = "" if target is None else f"{target.exception}|{target.message}|{target.match}|{target.frame}"
        return f"exec|{described}|{self.append}"

    @property
    def traits(self) -> Traits:
        """The candidate runs as Python, under this interpreter, traced as it runs (its appended test, its folder,
        its sandbox). Its compile is a check worth no test, except when the target is a syntax error:
        ``compile`` rejects more than the parser does (``return`` outside a function), and such a candidate
        may be just what a search for a compiler's error wants."""
        target = self.target
        return Traits(
            python=self.python_path, target=target.describe() if target is not None else "",
            tracer=tracer_under(self.python_path, append=self.append, search_path=self.search_path, limits=self.limits),
            compiles=self.compiles if self._compiles_alone(target) else None,
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

    def calibrate(self, text: str, match: str = "message", same_frame: bool = False, timeout: float | None = None) -> Verdict:
        """Run the original once: set the target (if none) and the per-test timeout.

        Returns the original's verdict (its run in ``.run``); callers turn a
        mismatch into NotReproducibleError.
        """
        saved = self.timeout
        self.timeout = timeout if timeout is not None else 600.0
        run = self.run(text)
        self.timeout = saved if saved is not None else max(MIN_TIMEOUT, 10 * run.seconds)
        if saved is None:
            self.cpu_timeout = self._calibrated_cpu = max(MIN_CPU_TIMEOUT, 10 * run.seconds)
        if timeout is not None:
            self.timeout = timeout
            self.cpu_timeout = self._calibrated_cpu = None
        if self.target is None and run.ending in ("exception", "syntax"):
            self.target = Target.from_run(run, match, same_frame)
        elif self.target is not None and same_frame and run.ending == "exception":
            self.target = Target(self.target.exception, self.target.message, self.target.match, run.frame)
        return Verdict(self.classify(run), run)

    def judge(self, text: str) -> Verdict:
        return self.start(text, compile_here=True).wait()

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

    def compiles(self, text: str) -> types.CodeType | None:
        """``text`` compiled (None if it does not compile): the first step of its test, done here and kept for it.

        A search that only wants candidates that parse (the token pass), or
        that keys them by byte code, asks this instead of compiling them
        itself: a candidate is then compiled once, not again by its test.
        """
        kept = self._compiled.get(text)
        if kept is not None:  # the parse check and the alike key ask about the same candidate
            return kept
        code = _compile(text, self.code_name)
        if isinstance(code, Run):
            return None
        if len(self._compiled) >= _COMPILED_KEPT:
            del self._compiled[next(iter(self._compiled))]
        self._compiled[text] = code
        return code

    def start(self, text: str, compile_here: bool = False) -> ExecPending:
        """Hand ``text`` to a child; the returned job reports how it ended.

        With ``compile_here`` (one test at a time: :meth:`judge`) a candidate
        under :data:`PRECOMPILE_LIMIT` is compiled here, so one that does not
        compile costs no child. Otherwise (``-j``: several tests run while this
        process renders and starts the next) the child compiles it: at ``-j 2``
        compiling in the parent took a quarter of stdlib_argparse's wall time.
        """
        append_code = self._append_code()
        glued = self.append and append_code is None  # the append compiles only after a candidate
        source = text + ("\n" + self.append if self.append else "")
        code = None if glued else self._compiled.pop(text, None)
        if code is None and compile_here and len(source) < PRECOMPILE_LIMIT:
            compiled = _compile(source if glued else text, self.code_name)
            if isinstance(compiled, Run):
                return ExecPending(self, None, compiled)
            code = compiled
        if append_code is not None:  # its lines as in the file the child writes: the candidate's, then its own
            append_code = _shift_lines(append_code, text.count("\n") + 1)
        timeout = self.timeout if self.timeout is not None else 600.0
        payload = (source, None if glued else text, code, append_code, self.code_name, self.search_path)
        job, self._spare = start_in_spare(self._spare, payload, self.limits.for_timeout(timeout), timeout, self.cpu_timeout)
        job.own_files = frozenset({self.code_name, OUTPUT_NAME})
        job.keep_output = self.keep_output
        return ExecPending(self, job, None)

    def _append_code(self) -> types.CodeType | None:
        if not self.append:
            return None
        if self._appended is None or self._appended[0] != self.append:
            code = _compile(self.append, self.code_name)
            self._appended = (self.append, None if isinstance(code, Run) else code)
        return self._appended[1]

    def close(self) -> None:
        """End the spare child (the end of a reduction)."""
        if self._spare is not None:
            self._spare.discard()
            self._spare = None
        self._compiled.clear()

    def __del__(self) -> None:  # an oracle dropped without close() must not leave its spare waiting
        try:
            self.close()
        except Exception:  # at interpreter exit, half torn down
            pass


#: How many candidates :meth:`ExecOracle.compiles` keeps compiled for their tests (one per running test is enough).
_COMPILED_KEPT = 16


def _shift_lines(code: types.CodeType, offset: int) -> types.CodeType:
    """``code`` with every line number ``offset`` further down (nested functions and classes too)."""
    consts = tuple(_shift_lines(c, offset) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_firstlineno=code.co_firstlineno + offset, co_consts=consts)


class ExecPending:
    """A candidate running under the exec oracle."""

    def __init__(self, oracle: ExecOracle, job: Job | None, run: Run | None) -> None:
        self.oracle = oracle
        self.job = job
        self.started = time.monotonic()
        self._run = run

    def done(self) -> bool:
        """Whether the test has ended (reads its report if it is there; never blocks)."""
        return self._run is not None or (self.job is not None and self.job.poll() is not None)

    def ready_fds(self) -> list[int] | None:
        """Descriptors to wait on for the test's end."""
        return [] if self.done() or self.job is None else [self.job.fd]

    def wait(self) -> Verdict:
        if self._run is None:
            assert self.job is not None
            self._run = self.job.wait()
        self.oracle.tests += 1
        self.oracle.seconds += time.monotonic() - self.started
        outcome = self.oracle.classify(self._run)
        if outcome is Outcome.FAIL:
            self.oracle._failed_in(self._run.seconds)
        return Verdict(outcome, self._run)

    def cancel(self) -> None:
        if self.job is not None:
            self.job.kill()


#: The file in a test's folder that receives the candidate's stdout and stderr.
OUTPUT_NAME = "output.txt"


def compile_quietly(source: str, path: str) -> types.CodeType | None:
    """``source`` compiled as a file at ``path`` (warnings silenced), or None when it does not compile."""
    code = _compile(source, path)
    return None if isinstance(code, Run) else code


def _compile(source: str, path: str) -> types.CodeType | Run:
    """The candidate compiled in the parent (the forked child runs this very code object),
    or the run of a candidate that does not compile, found without forking.

    The candidate's SyntaxWarnings are silenced here; a plain run would print
    them, but the exec oracle judges only how the run ends.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return compile(source, path, "exec", dont_inherit=True)
    except BaseException as error:  # SyntaxError, ValueError (null bytes), RecursionError, MemoryError
        if isinstance(error, (KeyboardInterrupt, SystemExit)):
            raise
        return Run("syntax", exception=type(error).__qualname__, message=syntax_message(error))


def _prepare_server() -> None:
    """What every spare would do first, done once in the fork server: the warning filters of a plain run,
    and astreduce's objects out of the garbage collector's reach (0.4 ms and 80 copied pages a test)."""
    _default_warnings()
    gc.freeze()


def _served_spare_main(command_fd: int, report_fd: int, workdir: str, args: tuple[Any, ...]) -> None:
    """A spare forked by the fork server (its limits come as a tuple; the server was prepared)."""
    limits, cgroup = args
    _spare_main(command_fd, report_fd, workdir, Limits(*limits), cgroup, served=True)


def _spare_main(command_fd: int, report_fd: int, workdir: str, limits: Limits, cgroup: str | None, served: bool = False) -> None:
    """A spare child: get ready, wait for the candidate, run it; never returns.

    ``served``: forked by the fork server, which was prepared (warnings, frozen
    objects) and removes the folder of a spare left waiting; such a spare
    confines itself before it waits, so that its test starts at once.
    """
    report: dict[str, object] = {"ending": "crash"}
    cap = ProcessGroupCap(limits.processes, enabled=False)
    cap.path = None if cgroup is None else Path(cgroup)
    parent = os.getppid()
    try:
        if not served:
            gc.freeze()  # the parent's objects stay out of the child's collections: fewer copied pages
            _default_warnings()
        enter_test_folder(workdir, OUTPUT_NAME)
        limits.apply()
        if served:  # from here on the candidate's: its folder only, no network
            die_with_parent()
            cap.join_before_spawning()
            limits.confine_to(workdir, cap)
        header = _read_exactly(command_fd, 8)
        message = _read_exactly(command_fd, int.from_bytes(header, "little")) if len(header) == 8 else b""
        os.close(command_fd)
        if not message:  # closed unused: the reduction is over, or astreduce died (even by kill -9)
            if not served:
                shutil.rmtree(workdir, ignore_errors=True)
            os._exit(0)
        if not served:
            die_with_parent()  # from now on; a spare that waits leaves with its pipe, folder and all
            if os.getppid() != parent:  # astreduce died just now, before the line above
                os._exit(0)
        payload = marshal.loads(message)
        changed_limits = payload[-1]
        if changed_limits is not None:
            limits = Limits(*changed_limits)
            limits.apply()
        if not served:
            cap.join_before_spawning()
            limits.confine_to(workdir, cap)  # from here on the candidate's: its folder only, no network
        if payload[0] is None:  # a tree and its entry (astreduce.oracles.forked_tree)
            from astreduce.oracles.forked_tree import run_tree

            report = run_tree(payload[1:-1], workdir)
            return
        source, text, code, append_code, name, search_path = payload[:-1]
        path = os.path.join(workdir, name)
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as file:
            file.write(source)
        sys.argv = [path]
        sys.path[0:1] = [search_path or workdir]
        report = _run(source if text is None else text, code, append_code, path)
    except BaseException as error:  # astreduce's own setup failed: report a crash, never return
        report = crash_report(error)
    finally:
        flush_output()
        try:
            report["spawned"] = cap.joined
            os.write(report_fd, json.dumps(report).encode("utf-8", errors="replace") + b"\n")
        finally:
            os._exit(0)


def _read_exactly(fd: int, size: int) -> bytes:
    chunks: list[bytes] = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _run(text: str, code: types.CodeType | None, append_code: types.CodeType | None, path: str) -> dict[str, object]:
    """Run ``text`` (``code``, when the parent compiled it), then ``append_code``, as ``__main__``: the report."""
    try:
        if code is None:
            code = compile(text, os.path.basename(path), "exec", dont_inherit=True)
    except BaseException as error:  # SyntaxError, ValueError (null bytes), RecursionError, MemoryError
        return syntax_report(error)
    return run_main(code, path, append_code)


def _default_warnings() -> None:
    """The warning filters a plain ``python file.py`` starts with, whatever the parent set."""
    warnings.resetwarnings()
    warnings.filterwarnings("default", category=DeprecationWarning, module="__main__", append=True)
    for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
        warnings.filterwarnings("ignore", category=category, append=True)
