"""The sandbox every test runs in: its own folder, limits, and a clean kill.

What it does:

* every test runs in an empty temporary directory of its own; afterwards
  the directory is emptied for the next test when the candidate left only
  its own files in it, else removed (creating and removing directories and
  cgroups cost 3.5 ms a test, as much as the fork);
* the test runs in its own process group, and on a timeout or when its
  result is no longer wanted the whole group is killed;
* when a pids cgroup can be created (as root on Linux), every process the
  test starts — grandchildren that left the process group included — is
  counted (at most :attr:`Limits.processes`) and killed at the end;
  otherwise RLIMIT_NPROC limits the user's processes (root ignores that);
* limits on CPU time, address space (memory) and file size (RLIMIT_CPU,
  RLIMIT_AS, RLIMIT_FSIZE).

* confinement (:mod:`~astreduce.oracles.confine`, :meth:`Limits.confine_to`):
  writes only in its folder and the allowed paths, no TCP, no signals out,
  every other mount read-only, where the kernel allows it.

What it does not do: restrict reads (a candidate may read any file the
user can), UDP, or Unix sockets named by a path; and with
``--no-confine``, or on a kernel without Landlock, a candidate can write
wherever the user can.
"""

from __future__ import annotations

import atexit
import faulthandler
import fcntl
import itertools
import os
import re
import resource
import secrets
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Generic, TypeVar

from astreduce.oracles import confine

_CGROUP_ROOT = Path("/sys/fs/cgroup/pids")

#: The shortest default per-test timeout: 10x the original's run time is too
#: tight for fast originals on a busy machine, where a timeout would pass for UNRESOLVED.
MIN_TIMEOUT = 2.0
#: The shortest default CPU budget per test of the exec oracle. CPU time does
#: not grow with the load, so it can be far tighter than the wall clock: a
#: candidate whose loop lost its exit costs this much, not MIN_TIMEOUT.
MIN_CPU_TIMEOUT = 0.2
_counter = itertools.count()


@dataclass
class Limits:
    """What a test's process may use and touch, applied in it before it runs a candidate:
    resource limits, and confinement (:mod:`~astreduce.oracles.confine`)."""

    cpu_seconds: int = 60
    memory_bytes: int = 4 << 30
    file_bytes: int = 256 << 20
    processes: int = 256
    confine: bool = True
    """Write only in the test's folder, no TCP, no signals out (where the kernel has Landlock)."""
    writable: tuple[str, ...] = ()
    """Folders (or files) a confined test may write besides its own folder (``--allow-write``)."""
    network: bool = False
    """Let a confined test bind and connect TCP sockets (``--allow-network``)."""

    def confine_to(self, folder: str, cap: ProcessGroupCap | None = None) -> int:
        """In the test's own process, before it runs anything: confine it to ``folder`` (and :attr:`writable`),
        with ``TMPDIR`` there, so that tools which write temporary files still work; a test that joins its
        pids cgroup only when it starts a process (``cap``) may still join it. The Landlock ABI applied
        (0: not confined, by choice or for want of Landlock)."""
        if not self.confine:
            return 0
        files = [str(cap.path / "cgroup.procs")] if cap is not None and cap.path is not None and not cap.joined else []
        applied: int = confine.confine(folder, self.writable, files, self.network)  # type: ignore[no-untyped-call]  # free of annotations (run under other interpreters)
        return applied

    def apply(self, pid: int = 0) -> None:
        """Set the limits on the calling process (in the child, before exec'ing anything), or on
        process ``pid`` (a command just started, before it runs anything of its own)."""
        for which, value in (
            (resource.RLIMIT_CPU, self.cpu_seconds),
            (resource.RLIMIT_AS, self.memory_bytes),
            (resource.RLIMIT_FSIZE, self.file_bytes),
            (resource.RLIMIT_NPROC, self.processes),
        ):
            try:
                hard = resource.prlimit(pid, which)[1]
                limit = value if hard == resource.RLIM_INFINITY else min(value, hard)
                resource.prlimit(pid, which, (limit, hard))
            except (ValueError, OSError):  # gone already, or a limit this system will not let us set: run without it
                pass

    def confinement(self) -> tuple[bool, tuple[str, ...], bool, int]:
        """What a test's process fixes before it waits for its candidate (its confinement and its
        cgroup's process cap): a spare made under other such limits cannot serve."""
        return self.confine, self.writable, self.network, self.processes

    def for_timeout(self, timeout: float) -> Limits:
        """These limits with the CPU limit just above ``timeout``; the address
        space never below twice what the (forking) parent already uses."""
        return replace(self, cpu_seconds=int(timeout) + 2, memory_bytes=max(self.memory_bytes, 2 * virtual_memory()))


def enter_test_folder(workdir: str, output_name: str) -> None:
    """In a test's forked child: a process group of its own, default SIGINT and SIGTERM,
    ``workdir`` as working directory, standard input empty, standard output and error
    into the file ``output_name`` there. A fault handler (``PYTHONFAULTHANDLER``, pytest's) is turned
    off: it writes to a copy of the old standard error, and a candidate's crash is its outcome, not a
    stack of astreduce's on the terminal."""
    faulthandler.disable()
    os.setpgid(0, 0)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.chdir(workdir)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    output = os.open(os.path.join(workdir, output_name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(output, 1)
    os.dup2(output, 2)


_launcher: list[str] | None | bool = False


def pdeathsig_launcher() -> list[str] | None:
    """A command prefix that sets the parent-death signal and execs the rest: util-linux's ``setpriv``.

    Starting a command through it lets :mod:`subprocess` use ``vfork``
    instead of running Python code between fork and exec (``preexec_fn``),
    which forces a full ``fork`` of astreduce's process: 2.3 ms a start
    instead of 7 ms here. None when ``setpriv`` is missing or too old.
    """
    global _launcher
    if _launcher is False:
        _launcher = None
        setpriv = shutil.which("setpriv")
        if setpriv is not None:
            prefix = [setpriv, "--pdeathsig", "KILL", "--"]
            try:
                done = subprocess.run([*prefix, "true"], capture_output=True, timeout=10)
                if done.returncode == 0:
                    _launcher = prefix
            except (OSError, subprocess.SubprocessError):
                pass
    return _launcher if isinstance(_launcher, list) else None


def wait_exit(popen: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for ``popen`` to end and reap it; False on a timeout.

    Waits on a pidfd, which wakes the moment the process ends;
    :meth:`subprocess.Popen.wait` with a timeout polls with sleeps of up to
    50 ms, which cost a 60 ms test 25 ms on average.
    """
    try:
        descriptor = os.pidfd_open(popen.pid)
    except (AttributeError, OSError):  # not Linux 5.3+, or reaped already
        try:
            popen.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        return True
    try:
        poller = select.poll()
        poller.register(descriptor, select.POLLIN)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if poller.poll(max(0, int(left * 1000) + 1)):
                break
            if left <= 0:
                return False
    finally:
        os.close(descriptor)
    popen.wait()
    return True



def virtual_memory() -> int:
    """This process's address-space size: a forked child starts with all of it.

    Read at most once a second: every test asks, and it changes slowly.
    """
    now = time.monotonic()
    if now - _measured[0] < 1.0 and _measured[2] == os.getpid():
        return int(_measured[1])
    try:
        with open("/proc/self/statm") as statm:
            size = int(statm.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        size = 0
    _measured[:] = [now, size, os.getpid()]
    return size


#: When :func:`virtual_memory` last looked, what it found, and in which process.
_measured: list[float] = [float("-inf"), 0, 0]


class ProcessGroupCap:
    """A pids cgroup for one test: caps its process count and finds every process to kill.

    When the cgroup cannot be created (not root, no cgroup v1 pids
    controller), :attr:`path` is ``None`` and only the process group is killed.
    A cgroup left empty by its test is kept for the next one (see :data:`_idle_cgroups`).
    """

    def __init__(self, limit: int, enabled: bool = True) -> None:
        self.path: Path | None = None
        self.limit = limit
        self.joined = False
        """In the test's process: whether it joined (it started, or was about to start, a process)."""
        if not enabled:
            return
        while _idle_cgroups:
            reused, reused_limit = _idle_cgroups.pop()
            try:
                if reused_limit != limit:
                    (reused / "pids.max").write_text(f"{limit}\n")
            except OSError:
                _remove_cgroup(reused)
                continue
            self.path = reused
            return
        _sweep_stale_cgroups()
        candidate = _CGROUP_ROOT / f"astreduce-{os.getpid()}-{next(_counter)}"
        try:
            candidate.mkdir()
            (candidate / "pids.max").write_text(f"{limit}\n")
            self.path = candidate
        except OSError:
            self.path = None

    def join(self, pid: int | None = None) -> None:
        """Move the calling process (the test's first process), or process ``pid``, into the cgroup."""
        self.joined = True
        if self.path is not None:
            try:
                (self.path / "cgroup.procs").write_text(f"{os.getpid() if pid is None else pid}\n")
            except OSError:
                pass

    def join_before_spawning(self) -> None:
        """Join the cgroup only when the calling process is about to start another.

        Joining costs a test about 2 ms, and most candidates never start a
        process. An audit hook joins before any process-creating event
        (``os.fork``, ``subprocess.Popen``, ``os.system``, ``os.exec*``,
        ``os.posix_spawn``, any foreign call through ``ctypes``), and the
        call multiprocessing's spawn uses is wrapped too. A process created
        some other way (a C extension's own fork) escapes the count, but not
        the process-group kill.
        """
        if self.path is None:
            return
        joined = False

        def join_once() -> None:
            nonlocal joined
            if not joined:
                joined = True
                self.join()

        def hook(event: str, args: tuple[object, ...]) -> None:
            if not joined and event in _SPAWNING_EVENTS:
                join_once()

        sys.addaudithook(hook)
        try:
            import _posixsubprocess

            fork_exec = _posixsubprocess.fork_exec

            def joining_fork_exec(*args: Any, **kwargs: Any) -> Any:  # fork_exec's own signature, passed on as it is
                join_once()
                return fork_exec(*args, **kwargs)

            _posixsubprocess.fork_exec = joining_fork_exec
        except (ImportError, AttributeError):
            pass

    def unused(self) -> bool:
        """True when no process of the test is in the cgroup (or there is no cgroup to look in)."""
        if self.path is None:
            return True
        try:
            return not (self.path / "cgroup.procs").read_text().split()
        except OSError:
            return False

    def release_unused(self) -> None:
        """Hand back a cgroup the test never joined (its report said so): nothing to kill."""
        if self.path is not None and os.getpid() == _OWNER and len(_idle_cgroups) < _IDLE_LIMIT:
            _idle_cgroups.append((self.path, self.limit))
            self.path = None
        else:
            self.kill_all()

    def kill_all(self) -> None:
        """Kill every live process left in the cgroup, then remove it (or keep it for the next test)."""
        if self.path is None:
            return
        procs = self.path / "cgroup.procs"
        for _ in range(50):
            try:
                pids = [int(p) for p in procs.read_text().split()]
            except OSError:
                break
            live = [pid for pid in pids if not _is_zombie(pid)]
            if not live:
                break
            for pid in live:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.001)
        path, self.path = self.path, None
        try:  # a killed process leaves cgroup.procs at once, and pids.current once it is reaped
            empty = not procs.read_text().split() and (path / "pids.current").read_text().strip() == "0"
        except OSError:
            empty = False
        if empty and len(_idle_cgroups) < _IDLE_LIMIT and os.getpid() == _OWNER:
            _idle_cgroups.append((path, self.limit))
        else:
            _remove_cgroup(path)


#: Audit events that start a process (or may: any foreign call through ctypes).
_SPAWNING_EVENTS = frozenset(
    {
        "os.fork", "os.forkpty", "os.posix_spawn", "os.spawn", "os.system", "os.exec",
        "os.startfile", "subprocess.Popen", "pty.spawn", "ctypes.call_function", "ctypes.dlopen",
    }
)
#: Empty cgroups (and their pids.max) ready for the next test; removed at exit.
_idle_cgroups: list[tuple[Path, int]] = []
#: Empty test folders ready for the next test; removed at exit.
_idle_workdirs: list[str] = []
#: More idle cgroups or folders than tests that can run at once is waste.
_IDLE_LIMIT = 64
#: The process that owns the pools (a forked child must not hand them on).
_OWNER = os.getpid()
_swept = False


def reap(pid: int) -> None:
    """Collect the exit of a killed test's process later: waiting for a large process
    to tear down costs 1-2 ms, and nothing needs its status."""
    _unreaped.append(pid)
    still: list[int] = []
    for child in _unreaped:
        try:
            done, _ = os.waitpid(child, os.WNOHANG)
        except ChildProcessError:
            continue
        if done == 0:
            still.append(child)
    _unreaped[:] = still


#: Killed test processes not yet collected (see :func:`reap`).
_unreaped: list[int] = []


def _remove_cgroup(path: Path) -> None:
    try:
        path.rmdir()
    except OSError:  # zombies not yet reaped keep it busy: leave it, it is empty of live processes
        pass


def _sweep_stale_cgroups() -> None:
    """Remove the empty cgroups of astreduce processes that died without cleaning up (``kill -9``)."""
    global _swept
    if _swept:
        return
    _swept = True
    try:
        entries = list(_CGROUP_ROOT.glob("astreduce-*-*"))
    except OSError:
        return
    for entry in entries:
        owner = entry.name.split("-")[1]
        if owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
            _remove_cgroup(entry)


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` (a pipe or a file takes what it can at a time). Raises OSError."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def drop_idle_workdirs() -> None:
    """Remove the folders kept for the next tests: a fork server that ends removes the folders of the
    children it has not reaped yet, and one of them may already be kept here for another test."""
    while _idle_workdirs and os.getpid() == _OWNER:
        remove_workdir(_idle_workdirs.pop())


@atexit.register
def _remove_idle() -> None:
    if os.getpid() != _OWNER:
        return
    while _idle_cgroups:
        _remove_cgroup(_idle_cgroups.pop()[0])
    drop_idle_workdirs()
    _Claim.end()


def _is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X")
    except (OSError, IndexError):
        return True


def kill_group(pid: int) -> None:
    """SIGKILL the process group led by ``pid`` (the test and what it started)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


E = TypeVar("E")


class EndedAtExit(Generic[E]):
    """What this process holds that must end when it exits (spares waiting for a test, warm pytest
    processes): each is ended by ``end`` at exit, in the process that made it, not in a forked child."""

    def __init__(self, end: Callable[[E], None]) -> None:
        self._items: set[E] = set()
        self._end = end
        self._owner = os.getpid()
        atexit.register(self._end_all)

    def add(self, item: E) -> None:
        self._items.add(item)

    def discard(self, item: E) -> None:
        self._items.discard(item)

    def _end_all(self) -> None:
        if os.getpid() == self._owner:
            for item in list(self._items):
                self._end(item)


def make_workdir() -> str:
    """An empty folder of its own for one test, named after this process's claim (:class:`_Claim`)."""
    if _idle_workdirs and os.getpid() == _OWNER:
        return _idle_workdirs.pop()
    return tempfile.mkdtemp(prefix=f"{_Claim.token()}-")


class _Claim:
    """What says this process's test folders are in use, so that another astreduce may remove them
    once it is gone.

    A test's folder cannot outlive a ``kill -9`` of astreduce by its own
    doing, and the temporary folder is shared. So the first test folder
    makes a claim: a lock file ``astreduce-TOKEN.lock`` held with ``flock``
    for the life of this process (a forked child drops its copy, so that no
    candidate can unlock it; a killed astreduce's children die with it), and
    every folder is named ``astreduce-TOKEN-…``. The next astreduce that
    makes a claim takes the lock of every claim nobody holds, and removes
    that claim's folders. A random token, not a pid: pids are reused, and
    differ between the containers that may share one temporary folder. Where
    the temporary folder cannot lock or link, folders are made unclaimed, as
    before claims.
    """

    _token: str | None = None
    _fd: int | None = None

    @classmethod
    def token(cls) -> str:
        if cls._token is None:
            made = cls._make()
            cls._token = made or "astreduce"
            if made:
                _sweep_unclaimed(made)
        return cls._token

    @classmethod
    def _make(cls) -> str | None:
        """A new claim's token, held; None when the temporary folder cannot hold claims."""
        folder = tempfile.gettempdir()
        for _ in range(8):
            token = f"astreduce-{secrets.token_hex(6)}"
            # locked under another name first: a sweep never sees a claim that is not held yet
            pending = os.path.join(folder, f".{token}.lock")
            try:
                fd = os.open(pending, os.O_CREAT | os.O_EXCL | os.O_RDWR | os.O_CLOEXEC, 0o600)
            except OSError:
                return None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                os.link(pending, os.path.join(folder, f"{token}.lock"))
            except FileExistsError:  # pragma: no cover  # 48 random bits met again
                os.close(fd)
                continue
            except OSError:  # no flock or no hard links here
                os.close(fd)
                return None
            finally:
                Path(pending).unlink(missing_ok=True)
            cls._fd = fd
            return token
        return None  # pragma: no cover

    @classmethod
    def end(cls) -> None:
        """At exit, when its tests have ended: this process's folders go (one whose test never ended
        among them), then its claim."""
        if cls._fd is not None and cls._token is not None:
            folder = Path(tempfile.gettempdir())
            for left in folder.glob(f"{cls._token}-*"):
                remove_workdir(str(left))
            Path(folder, f"{cls._token}.lock").unlink(missing_ok=True)
            os.close(cls._fd)
            cls._fd = None

    @classmethod
    def forget_in_child(cls) -> None:
        """A forked child drops its copy of the lock (it names its folders as its parent does): a
        candidate that unlocked an inherited copy would unlock its parent's claim."""
        if cls._fd is not None:
            os.close(cls._fd)
            cls._fd = None


os.register_at_fork(after_in_child=_Claim.forget_in_child)


#: The name of a claim: a lock file's name less ``.lock``, the prefix of its folders.
_TOKEN = re.compile(r"astreduce-[0-9a-f]{12}")


def _sweep_unclaimed(mine: str) -> None:
    """Remove the test folders of every claim no process holds any more (see :class:`_Claim`)."""
    folder = Path(tempfile.gettempdir())
    try:
        claims = list(folder.glob("astreduce-*.lock"))
    except OSError:
        return
    for lock in claims:
        token = lock.name[: -len(".lock")]
        if token == mine or not _TOKEN.fullmatch(token):  # a name no claim has (``astreduce-*.lock``) is no glob
            continue
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW)
        except OSError:  # gone meanwhile, or not ours to open
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held: its astreduce (or a child of it) still runs
            os.close(fd)
            continue
        try:
            for stale in folder.glob(f"{token}-*"):
                if stale.is_dir() and not stale.is_symlink():
                    remove_workdir(str(stale))
            lock.unlink(missing_ok=True)
        except OSError:
            pass
        finally:
            os.close(fd)


def release_workdir(path: str, own_files: frozenset[str]) -> None:
    """Empty a test's folder for the next test when it holds only ``own_files``; else remove it.

    Anything else the candidate left (folders, links, other files, changed
    permissions) sends the folder to :func:`remove_workdir`.
    """
    try:
        folder = os.lstat(path)
        entries = list(os.scandir(path))
        reusable = (
            os.getpid() == _OWNER
            and len(_idle_workdirs) < _IDLE_LIMIT
            and stat.S_IMODE(folder.st_mode) == 0o700
            and all(e.name in own_files and e.is_file(follow_symlinks=False) for e in entries)
        )
        if reusable:
            for entry in entries:
                os.unlink(entry.path)
            _idle_workdirs.append(path)
            return
    except OSError:
        pass
    remove_workdir(path)


def remove_workdir(path: str) -> None:
    """Remove a test's folder, even when the candidate made parts of it read-only."""
    shutil.rmtree(path, ignore_errors=True)
    if os.path.exists(path):
        for root, folders, files in os.walk(path):
            for name in folders + files:
                try:
                    os.chmod(os.path.join(root, name), 0o700)
                except OSError:
                    pass
        shutil.rmtree(path, ignore_errors=True)
