"""A test's child, forked ahead of its test: a *spare* waiting in its folder for the candidate.

Forking a child and making it ready (its folder, output files, limits,
confinement) costs more than many tests: a spare does it while the test
before it runs, and its own test then begins with a write to a pipe
(:class:`Spare`). :class:`Job` is the test once started: its report read
from a pipe, its time and CPU limits kept, its child and what it started
killed at the end. The exec oracle (:mod:`astreduce.oracles.execution`),
the forked tree (:mod:`astreduce.run.forked_tree`) and the predicate
oracle start their tests through these.
"""

from __future__ import annotations

import contextlib
import fcntl
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
from abc import ABC, abstractmethod
from dataclasses import astuple, dataclass, fields, replace
from pathlib import Path
from typing import Any, ClassVar

from astreduce.run import Run, frames_from
from astreduce.run._worker_main import crash_report, flush_output, run_main, syntax_report
from astreduce.run.confine import die_with_parent
from astreduce.run.forkserver import ForkServer, Reply, forget_server, fork_server
from astreduce.run.sandbox import (
    EndedAtExit,
    Limits,
    enter_test_folder,
    kill_group,
    make_workdir,
    reap,
    release_workdir,
    remove_workdir,
    write_all,
)
from astreduce.run.cgroups import ProcessGroupCap


class ChildTest(ABC):
    """What a spare runs once its test comes: a typed payload, sent as its :attr:`kind` and its fields'
    values (marshalled: strings, code objects, their dicts and tuples), made again in the child.

    Each kind registers itself by subclassing; the module that defines it is
    imported in the child (by astreduce, or preloaded by the fork server), so
    that this module names none of them.
    """

    KINDS: ClassVar[dict[str, type[ChildTest]]] = {}
    kind: ClassVar[str]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        ChildTest.KINDS[cls.kind] = cls

    def values(self) -> tuple[object, ...]:
        """Its fields' values, in order (not copied: a code object travels as it is)."""
        return tuple(getattr(self, f.name) for f in fields(self))  # type: ignore[arg-type]  # every kind is a dataclass

    @abstractmethod
    def run(self, workdir: str) -> dict[str, object]:
        """Run it in the child, confined in ``workdir``: the report the parent reads."""


@dataclass(frozen=True)
class ProgramTest(ChildTest):
    """A candidate run as ``__main__`` from a file in the test's folder (the exec oracle's test)."""

    kind: ClassVar[str] = "program"
    source: str
    """The file's text (the candidate and what is appended)."""
    text: str | None
    """What ``code`` was compiled from, when not ``source``."""
    code: types.CodeType | tuple[types.CodeType, ...] | None
    """Compiled by the parent (whole, or statement by statement); None: compiled in the child."""
    append_code: types.CodeType | None
    name: str
    """The file's name in the test's folder."""
    search_path: str
    """``sys.path[0]`` (the folder of the original); empty: the test's folder."""

    def run(self, workdir: str) -> dict[str, object]:
        path = os.path.join(workdir, self.name)
        _write_file(path, self.source)
        sys.argv = [path]
        sys.path[0:1] = [self.search_path or workdir]
        return _run(self.source if self.text is None else self.text, self.code, self.append_code, path)


class Job:
    """A candidate running in a forked child; wait for it or kill it."""

    def __init__(
        self, pid: int, read_fd: int, workdir: str, timeout: float, cap: ProcessGroupCap, cpu_timeout: float | None = None,
        *, own_files: frozenset[str] = frozenset(), keep_output: bool = False, server: ForkServer | None = None,
    ) -> None:
        self.pid = pid
        self.cap = cap
        self.fd = read_fd
        self.workdir = workdir
        self.started = time.monotonic()
        self.timeout = timeout
        self.cpu_timeout = cpu_timeout if cpu_timeout is not None and cpu_timeout < timeout else None
        self.own_files = own_files
        """What the child writes into its folder itself: the folder may serve again when nothing else is left."""
        self.keep_output = keep_output
        """Read the end of what the test printed into its run (``--verbose``)."""
        self.server = server
        """The fork server whose child runs the test (it knows how the child exited); None: forked here."""
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
            frames=frames_from(report),
            cpu=float(report["cpu"]) if isinstance(report.get("cpu"), (int, float)) else None,
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
    ``kill -9``). A spare of the fork server is forked by a room of it (see
    :mod:`~astreduce.run.forkserver`), moved into its test's pids cgroup
    by the server, and confines itself before it waits (Landlock to its own
    folder, no capabilities; the room's namespaces and socket filter stay),
    and takes the parent-death signal; the server
    removes its folder if it is left waiting. One forked here (no server
    serves) joins its cgroup and confines itself once its test came, and
    removes its own folder when it is left waiting.
    """

    def __init__(self, limits: Limits) -> None:
        self.workdir = make_workdir()
        self.limits = limits
        self.cap = ProcessGroupCap(limits.processes)
        """Its test's pids cgroup: the server moves the spare there before it answers with its pid."""
        cgroup = None if self.cap.path is None else str(self.cap.path)
        sys.stdout.flush()
        sys.stderr.flush()
        self.server: ForkServer | None = None
        """The fork server whose child this is (None: forked here, when no server could serve)."""
        try:
            fork_server(SERVED_MAIN, PREPARE_SERVER)  # started before the pipes, which are not the server's
        except OSError:
            pass
        command_read, self.command_fd = os.pipe()
        self.report_fd, report_write = os.pipe()
        self._pid: int | None = None
        self._reply: Reply | None = None
        for _ in range(2):  # a server that died (a candidate without confinement may kill it) is replaced
            try:
                self.server = fork_server(SERVED_MAIN, PREPARE_SERVER)
                self._reply = self.server.spawn(
                    command_read, report_write, self.workdir, (astuple(limits), cgroup),
                    room=(limits.confine, limits.writable, limits.network), cgroup=cgroup,
                )
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
            pid = self.server.answer(self._reply)
            if pid < 2:  # no child's: a kill of its group, or a wait for it, must never name another
                raise ConnectionError("the fork server answered no child")
            self._pid = pid
        return self._pid

    def send(self, message: bytes) -> bool:
        """Hand the spare its test; False when it is gone (then it is discarded)."""
        try:
            _ = self.pid  # forked, or the server that was to fork it is gone (OSError)
            data = len(message).to_bytes(8, "little") + message
            if len(data) > _PIPE_SIZE:  # a pipe that holds it all: this process writes it and goes on
                with contextlib.suppress(OSError):  # past the user's pipe limits: written as the child reads
                    fcntl.fcntl(self.command_fd, fcntl.F_SETPIPE_SZ, min(len(data), 1 << 20))
            write_all(self.command_fd, data)
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
    spare: Spare | None, test: ChildTest, limits: Limits, timeout: float, cpu_timeout: float | None,
    *, own_files: frozenset[str] = frozenset(), keep_output: bool = False,
) -> tuple[Job, Spare]:
    """Hand ``test`` (and the limits when they differ from the spare's) to ``spare`` (a new one when it is
    gone, or confined otherwise): its job, and the next test's spare, made ready while it runs.
    ``own_files`` and ``keep_output`` are the :class:`Job`'s."""
    while True:
        if spare is not None and spare.limits.confinement() != limits.confinement():
            spare.discard()
            spare = None
        if spare is None:
            spare = Spare(limits)
        changed = None if limits == spare.limits else astuple(limits)
        message = marshal.dumps((test.kind, test.values(), changed))  # type: ignore[arg-type]  # str, code objects, their dicts
        if spare.send(message):
            break
        spare = None
    job = Job(
        spare.pid, spare.report_fd, spare.workdir, timeout, spare.cap, cpu_timeout,
        own_files=own_files, keep_output=keep_output, server=spare.server,
    )
    return job, Spare(limits)


def start_server() -> None:
    """Start this process's fork server now, ahead of its first test (nothing when it cannot start)."""
    try:
        fork_server(SERVED_MAIN, PREPARE_SERVER)
    except OSError:
        pass


def remember_in_server(function: str, data: object, limits: Limits) -> int | None:
    """Have the fork server's room for ``limits`` (started now if need be) keep ``data`` for the children it
    forks from now on (see :meth:`~astreduce.run.forkserver.ForkServer.remember`): the server's pid,
    None when no server serves (a child then does without)."""
    try:
        server = fork_server(SERVED_MAIN, PREPARE_SERVER)
        server.remember(function, data, room=(limits.confine, limits.writable, limits.network))
    except OSError:
        return None
    return server.pid


#: What a pipe holds unless asked for more (Linux's default): a longer message is written as the child reads it.
_PIPE_SIZE = 1 << 16
#: Spares not yet handed a test: discarded at exit, so that none leaves its folder behind.
_waiting: EndedAtExit[Spare] = EndedAtExit(Spare.discard)


#: The file in a test's folder that receives the candidate's stdout and stderr.
OUTPUT_NAME = "output.txt"


#: The fork server's functions, by name (a fresh server imports them).
SERVED_MAIN, PREPARE_SERVER = f"{__name__}:served_spare_main", f"{__name__}:prepare_server"


def prepare_server() -> None:
    """What every spare would do first, done once in the fork server: the warning filters of a plain run,
    and the server's objects out of the garbage collector's reach (0.4 ms and 80 copied pages a test)."""
    _default_warnings()
    gc.freeze()


def served_spare_main(command_fd: int, report_fd: int, workdir: str, args: tuple[Any, ...]) -> None:
    """A spare forked by the fork server (its limits come as a tuple; the server was prepared)."""
    limits, cgroup = args
    _spare_main(command_fd, report_fd, workdir, Limits(*limits), cgroup, served=True)


def _spare_main(command_fd: int, report_fd: int, workdir: str, limits: Limits, cgroup: str | None, served: bool = False) -> None:
    """A spare child: get ready, wait for the candidate, run it; never returns.

    ``served``: forked by a room of the fork server, which was prepared (warnings, frozen
    objects), is confined and in its own network namespace, moved into its cgroup by the
    server, which removes the folder of a spare left waiting; such a spare confines itself
    before it waits, so that its test starts at once. One forked by astreduce joins its
    cgroup before it confines itself, once its test came.
    """
    report: dict[str, object] = {"ending": "crash"}
    began: float | None = None
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
            cap.watch_spawning()  # in its cgroup already: the server moved it there
            limits.confine_to(workdir, in_room=True)
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
        began = time.process_time()
        kind, values, changed_limits = marshal.loads(message)
        if changed_limits is not None:
            limits = Limits(*changed_limits)
            limits.apply()
        if not served:
            cap.join_before_spawning()  # before it is confined: then no candidate can write a cgroup.procs
            limits.confine_to(workdir)  # from here on the candidate's: its folder only, no network
        report = ChildTest.KINDS[kind](*values).run(workdir)
    except BaseException as error:  # astreduce's own setup failed: report a crash, never return
        report = crash_report(error)
    finally:
        flush_output()
        try:
            report["spawned"] = cap.spawned
            if began is not None:
                report["cpu"] = time.process_time() - began
            os.write(report_fd, json.dumps(report).encode("utf-8", errors="replace") + b"\n")
        finally:
            os._exit(0)


def _write_file(path: str, text: str) -> None:
    """``text`` into a new file at ``path`` (UTF-8), with the system calls alone: an ``open()`` in a
    fresh child touches pages of the io machinery it shares with the server."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)  # as open() makes it: the umask decides
    try:
        write_all(fd, text.encode("utf-8", errors="surrogateescape"))
    finally:
        os.close(fd)


def _read_exactly(fd: int, size: int) -> bytes:
    chunks: list[bytes] = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _run(text: str, code: types.CodeType | tuple[types.CodeType, ...] | None, append_code: types.CodeType | None, path: str) -> dict[str, object]:
    """Run ``text`` (``code``, when the parent compiled it, whole or statement by statement), then ``append_code``, as ``__main__``: the report."""
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
