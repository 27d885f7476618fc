"""Oracles: decide FAIL / PASS / UNRESOLVED for a candidate text.

The exec oracle compiles and runs a candidate as ``__main__`` in a forked
child — never in astreduce's own process — in a fresh temporary directory,
with output captured and limits on time, CPU, memory and file size. The
child reports how the run ended through a pipe; the parent compares the
exception with the target:

* the target exception (by type and message, or as ``--match`` says) → FAIL;
* no exception → PASS;
* anything else — a syntax error, another exception, a timeout, a crash,
  an exit without a report — → UNRESOLVED.

Running a candidate is split into :meth:`ExecOracle.start`, which forks and
returns a :class:`Job`, and :meth:`Job.wait`; a parallel executor keeps
several jobs in flight and cancels stale ones with :meth:`Job.kill`.
"""

from __future__ import annotations

import json
import os
import re
import resource
import select
import shutil
import signal
import sys
import tempfile
import time
import traceback
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from astreduce.errors import UsageError
from astreduce.outcome import Outcome

#: How a run ended, as reported by the child or seen by the parent.
ENDINGS = ("ok", "exception", "syntax", "timeout", "crash")


@dataclass(frozen=True)
class Run:
    """What one execution of a candidate did."""

    ending: str
    """One of :data:`ENDINGS`."""
    exception: str = ""
    """Qualified name of the exception's type (for 'exception' and 'syntax')."""
    message: str = ""
    frame: str = ""
    """Function name of the innermost traceback frame."""
    seconds: float = 0.0
    detail: str = ""
    """For 'crash' and 'timeout': what the parent saw (signal, exit status)."""

    def describe(self) -> str:
        """A short human description: ``AssertionError('My Test')``, ``no exception``."""
        if self.ending == "ok":
            return "no exception"
        if self.ending in ("exception", "syntax"):
            return f"{self.exception}({self.message!r})" if self.message else self.exception
        return f"{self.ending} ({self.detail})" if self.detail else self.ending


@dataclass(frozen=True)
class Verdict:
    """An outcome and the run behind it."""

    outcome: Outcome
    run: Run


class Oracle(Protocol):
    """Anything that can judge a candidate text."""

    @property
    def identity(self) -> str:
        """A string that changes whenever the oracle would judge differently (for caches)."""
        ...

    def judge(self, text: str) -> Verdict: ...


@dataclass(frozen=True)
class Target:
    """The exception a candidate must raise to be FAIL, and how it is matched."""

    exception: str
    message: str | None = None
    match: str = "message"
    """'type', 'message', or 'regex:PATTERN' (searched in the message)."""
    frame: str | None = None
    """When set, the innermost frame's function name must be this."""

    @classmethod
    def parse(cls, spec: str, match: str = "message") -> Target:
        """Read ``EXC`` or ``EXC:MESSAGE`` as given to ``--expect``."""
        name, sep, message = spec.partition(":")
        name = name.strip()
        if not re.fullmatch(r"[A-Za-z_][\w.]*", name):
            raise UsageError(f"--expect needs an exception name like AssertionError[:message], not {spec!r}")
        if match == "message" and not sep:
            match = "type"
        return cls(name, message if sep else None, match)

    @classmethod
    def from_run(cls, run: Run, match: str = "message", same_frame: bool = False) -> Target:
        return cls(run.exception, run.message, match, run.frame if same_frame else None)

    def matches(self, run: Run) -> bool:
        if run.ending != "exception" or not _same_type(run.exception, self.exception):
            return False
        if self.frame is not None and run.frame != self.frame:
            return False
        if self.match == "type":
            return True
        if self.match.startswith("regex:"):
            return re.search(self.match[len("regex:") :], run.message) is not None
        return run.message == (self.message or "")

    def describe(self) -> str:
        if self.match == "type" or self.message is None:
            return self.exception
        if self.match.startswith("regex:"):
            return f"{self.exception} matching /{self.match[len('regex:'):]}/"
        return f"{self.exception}({self.message!r})"


def _same_type(seen: str, wanted: str) -> bool:
    """``wanted`` may be qualified (``json.JSONDecodeError``) or bare (``JSONDecodeError``)."""
    return seen == wanted or seen.rsplit(".", 1)[-1] == wanted.rsplit(".", 1)[-1] and "." not in wanted


@dataclass
class Limits:
    """Resource limits applied in the child before it runs a candidate."""

    cpu_seconds: int = 60
    memory_bytes: int = 4 << 30
    file_bytes: int = 256 << 20

    def apply(self) -> None:
        for which, value in (
            (resource.RLIMIT_CPU, self.cpu_seconds),
            (resource.RLIMIT_AS, self.memory_bytes),
            (resource.RLIMIT_FSIZE, self.file_bytes),
        ):
            try:
                hard = resource.getrlimit(which)[1]
                limit = value if hard == resource.RLIM_INFINITY else min(value, hard)
                resource.setrlimit(which, (limit, hard))
            except (ValueError, OSError):  # a limit we may not lower here: run without it
                pass


def _virtual_memory() -> int:
    """This process's address-space size: the child inherits it before exec'ing anything."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return 0


class Job:
    """A candidate running in a forked child; wait for it or kill it."""

    def __init__(self, pid: int, read_fd: int, workdir: str, timeout: float) -> None:
        self.pid = pid
        self.fd = read_fd
        self.workdir = workdir
        self.started = time.monotonic()
        self.deadline = self.started + timeout
        self.timeout = timeout
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
            self._finish(Run("timeout", seconds=self.timeout, detail=f"ran over {self.timeout:g} s"))
        return self._run

    def wait(self) -> Run:
        while self._run is None:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                self._finish(Run("timeout", seconds=self.timeout, detail=f"ran over {self.timeout:g} s"))
                break
            readable, _, _ = select.select([self.fd], [], [], remaining)
            if readable:
                self._read()
        return self._run

    def kill(self) -> None:
        """Stop the child and everything it started; the job ends UNRESOLVED."""
        if self._run is None:
            self._finish(Run("crash", detail="cancelled"))

    def _read(self) -> None:
        chunk = os.read(self.fd, 65536)
        if chunk:
            self._buffer += chunk
            return
        seconds = time.monotonic() - self.started
        self._finish(_decode_report(self._buffer, seconds), eof=True)

    def _finish(self, run: Run, eof: bool = False) -> None:
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        _, status = os.waitpid(self.pid, 0)
        if eof and run.ending == "crash" and not run.detail:
            if os.WIFSIGNALED(status):
                run = Run("crash", seconds=run.seconds, detail=f"killed by {signal.Signals(os.WTERMSIG(status)).name}")
            else:
                run = Run("crash", seconds=run.seconds, detail=f"exited with status {os.waitstatus_to_exitcode(status)} without a report")
        os.close(self.fd)
        shutil.rmtree(self.workdir, ignore_errors=True)
        self._run = run


def _decode_report(data: bytes, seconds: float) -> Run:
    try:
        report = json.loads(data.decode("utf-8"))
        return Run(
            ending=report["ending"],
            exception=report.get("exception", ""),
            message=report.get("message", ""),
            frame=report.get("frame", ""),
            seconds=seconds,
        )
    except (ValueError, KeyError, UnicodeDecodeError):
        return Run("crash", seconds=seconds)


@dataclass
class ExecOracle:
    """Runs a candidate as ``__main__`` in a forked child and matches its exception.

    Args:
        target: the exception that makes a candidate FAIL; ``None`` until
            :meth:`calibrate` reads it off the original.
        filename: the name the candidate runs under (its ``__file__``).
        append: text appended to every candidate (a separate test script).
        timeout: seconds per test; ``None`` until :meth:`calibrate` sets it.
        search_path: directory put first on ``sys.path`` (the original's folder).
    """

    target: Target | None = None
    filename: str = "candidate.py"
    append: str = ""
    timeout: float | None = None
    search_path: str = ""
    limits: Limits = field(default_factory=Limits)
    tests: int = 0
    seconds: float = 0.0

    @property
    def identity(self) -> str:
        target = self.target
        described = "" if target is None else f"{target.exception}|{target.message}|{target.match}|{target.frame}"
        return f"exec|{described}|{self.append}"

    def calibrate(self, text: str, match: str = "message", same_frame: bool = False, timeout: float | None = None) -> Run:
        """Run the original once: set the target (if none) and the per-test timeout.

        Returns the original's run; callers turn a mismatch into NotReproducibleError.
        """
        saved = self.timeout
        self.timeout = timeout if timeout is not None else 600.0
        run = self.run(text)
        self.timeout = saved if saved is not None else max(1.0, 10 * run.seconds)
        if timeout is not None:
            self.timeout = timeout
        if self.target is None and run.ending == "exception":
            self.target = Target.from_run(run, match, same_frame)
        elif self.target is not None and same_frame and run.ending == "exception":
            self.target = Target(self.target.exception, self.target.message, self.target.match, run.frame)
        return run

    def judge(self, text: str) -> Verdict:
        run = self.run(text)
        return Verdict(self.classify(run), run)

    def classify(self, run: Run) -> Outcome:
        if run.ending == "ok":
            return Outcome.PASS
        if self.target is not None and self.target.matches(run):
            return Outcome.FAIL
        return Outcome.UNRESOLVED

    def run(self, text: str) -> Run:
        started = time.monotonic()
        try:
            return self.start(text).wait()
        finally:
            self.tests += 1
            self.seconds += time.monotonic() - started

    def start(self, text: str) -> Job:
        """Fork a child that runs ``text``; the returned job reports how it ended."""
        source = text + ("\n" + self.append if self.append else "")
        timeout = self.timeout if self.timeout is not None else 600.0
        workdir = tempfile.mkdtemp(prefix="astreduce-")
        limits = Limits(
            cpu_seconds=int(timeout) + 2,
            memory_bytes=max(self.limits.memory_bytes, 2 * _virtual_memory()),
            file_bytes=self.limits.file_bytes,
        )
        read_fd, write_fd = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            os.close(read_fd)
            _child(source, self.filename, workdir, self.search_path, write_fd, limits)
        os.close(write_fd)
        return Job(pid, read_fd, workdir, timeout)


def _child(source: str, filename: str, workdir: str, search_path: str, report_fd: int, limits: Limits) -> None:
    """Run ``source`` as ``__main__`` and write a one-line JSON report to ``report_fd``."""
    report: dict[str, str] = {"ending": "crash"}
    try:
        os.setpgid(0, 0)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.chdir(workdir)
        path = os.path.join(workdir, os.path.basename(filename))
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as file:
            file.write(source)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        output = os.open(os.path.join(workdir, "output.txt"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(output, 1)
        os.dup2(output, 2)
        limits.apply()
        sys.argv = [path]
        sys.path[0:1] = [search_path or workdir]
        try:
            code = compile(source, path, "exec", dont_inherit=True)
        except BaseException as error:  # SyntaxError, ValueError (null bytes), RecursionError, MemoryError
            report = {"ending": "syntax", "exception": type(error).__qualname__, "message": _message(error)}
        else:
            module = types.ModuleType("__main__")
            module.__file__ = path
            module.__dict__["__builtins__"] = __builtins__
            sys.modules["__main__"] = module
            try:
                exec(code, module.__dict__)
                report = {"ending": "ok"}
            except BaseException as error:  # the candidate's own exception: report it, whatever it is
                report = {
                    "ending": "exception",
                    "exception": _qualified(type(error)),
                    "message": _message(error),
                    "frame": _innermost(error),
                }
    except BaseException as error:  # astreduce's own setup failed: report a crash, never return
        report = {"ending": "crash", "message": _message(error)}
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:  # the candidate may have closed or replaced them
            pass
        try:
            os.write(report_fd, json.dumps(report).encode("utf-8", errors="replace"))
        finally:
            os._exit(0)


def _qualified(cls: type) -> str:
    module = getattr(cls, "__module__", "builtins")
    name = getattr(cls, "__qualname__", cls.__name__)
    return name if module in ("builtins", "__main__") else f"{module}.{name}"


def _message(error: BaseException) -> str:
    try:
        return str(error)
    except BaseException:  # a hostile __str__
        return "<unprintable>"


def _innermost(error: BaseException) -> str:
    tb = error.__traceback__
    frames = traceback.extract_tb(tb) if tb is not None else []
    return frames[-1].name if frames else ""


#: A function that judges a candidate text: the shape strategies call.
JudgeFunction = Callable[[str], Verdict]


def read_append(path: str | None) -> str:
    """The text of an ``--append`` script, or ''."""
    if not path:
        return ""
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot read --append file {path}: {error.strerror}") from error
