"""The sandbox every test runs in: its own folder, limits, and a clean kill.

What it does:

* every test runs in an empty folder of its own, inside this process's
  *room folder* (``TMPDIR/astreduce-TOKEN/``, see :class:`_Claim`);
  afterwards the folder is emptied for the next test when the candidate
  left only its own files in it, else removed (creating and removing
  folders and cgroups cost 3.5 ms a test, as much as the fork);
* the test runs in its own process group, and on a timeout or when its
  result is no longer wanted the whole group is killed;
* when a pids cgroup can be created (as root on Linux), every process the
  test starts — grandchildren that left the process group included — is
  counted (at most :attr:`Limits.processes`) and killed at the end; the
  test's first process is moved into the cgroup *before* it is confined,
  by a process that runs no code of the user's, so that no candidate can
  write a ``cgroup.procs`` (it could move any process in, to be killed);
  every cgroup made is killed and removed at exit; otherwise RLIMIT_NPROC
  limits the user's processes (root ignores that);
* limits on CPU time, address space (memory) and file size (RLIMIT_CPU,
  RLIMIT_AS, RLIMIT_FSIZE);
* confinement (:mod:`~astreduce.run.confine`, :meth:`Limits.confine_to`):
  writes only in its folder and the allowed paths, no network, no System V
  IPC shared with anything outside, no signals out, every other mount
  read-only, where the kernel allows it;
* a folder is removed without following a link the candidate left, at any
  depth (:func:`~astreduce.run.removal.remove_tree`); one that cannot
  be removed is named in one line when astreduce exits.

What it does not do: restrict reads (a candidate may read any file the
user can); and with ``--no-confine``, or on a kernel without Landlock and
namespaces, a candidate can write wherever the user can.
"""

from __future__ import annotations

import atexit
import faulthandler
import fcntl
import os
import re
import resource
import secrets
import select
import shutil
import signal
import stat
import statistics
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Generic, TypeVar

from astreduce.run import confine, removal
from astreduce.run.cgroups import remove_cgroups


#: The shortest default per-test timeout: 10x the original's run time is too
#: tight for fast originals on a busy machine, where a timeout would pass for UNRESOLVED.
MIN_TIMEOUT = 2.0
#: The shortest default CPU budget per test of the exec oracle. CPU time does
#: not grow with the load, so it can be far tighter than the wall clock: a
#: candidate whose loop lost its exit costs this much, not MIN_TIMEOUT. Five
#: ticks of the clock ``/proc`` counts a child's CPU in (a test's budget is ten
#: times the CPU of the last ones that reproduced, when more).
MIN_CPU_TIMEOUT = 0.05


@dataclass
class CpuBudget:
    """The CPU seconds a forked test may burn: ten times the median CPU of the last runs that failed as the
    original did, at least :data:`MIN_CPU_TIMEOUT`; none before the first such run.

    A candidate whose loop lost its exit otherwise costs the whole wall-clock timeout: on the ``email``
    package, hundreds of candidates of ``utils.py`` cost 2 s each. The median, not the slowest: one run
    slowed by a busy sibling at ``-j 2`` would triple every hang's cost. Their CPU, not their wall-clock
    time: at ``-j 2`` a failing test of ``email`` took 16 ms (median) until astreduce read its report, and
    3 ms of CPU; a budget from the former let 393 hangs take 73 of the 205 seconds its tests held a slot."""

    recent: deque[float] = field(default_factory=lambda: deque(maxlen=8))

    def failed_in(self, seconds: float) -> None:
        """A test failed as the original did, in ``seconds`` of CPU (wall-clock when its child did not say)."""
        self.recent.append(seconds)

    def seconds(self) -> float | None:
        return max(MIN_CPU_TIMEOUT, 10 * statistics.median(self.recent)) if self.recent else None


@dataclass
class Limits:
    """What a test's process may use and touch, applied in it before it runs a candidate:
    resource limits, and confinement (:mod:`~astreduce.run.confine`)."""

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

    def confine_to(self, folder: str, in_room: bool = False, room: bool = False) -> dict[str, int | bool]:
        """In the test's own process, before it runs anything: confine it to ``folder`` (and :attr:`writable`),
        with ``TMPDIR`` there, so that tools which write temporary files still work. ``in_room``: the process
        is a child of a room confined already (a fork server's); ``room``: it is such a room. What held
        (:func:`~astreduce.run.confine.confine`; nothing when not confining)."""
        if not self.confine:
            return {}
        held: dict[str, int | bool] = confine.confine(  # type: ignore[no-untyped-call]  # free of annotations (run under other interpreters)
            folder, self.writable, (), self.network, in_room, room
        )
        return held

    def probe(self) -> dict[str, int | bool]:
        """What confines a test under these limits on this machine, tried once in a forked child (cached):
        the report's ``confinement`` (:data:`~astreduce.run.confine.LAYERS`); nothing holds when not confining."""
        if not self.confine:
            return {layer: 0 if layer == "landlock" else False for layer in confine.LAYERS}
        key = (self.writable, self.network)
        if key not in _probed:
            folder = make_workdir()
            try:
                _probed[key] = confine.probe(folder, self.writable, self.network)  # type: ignore[no-untyped-call]  # free of annotations
            finally:
                remove_workdir(folder)
        return dict(_probed[key])

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


#: What :meth:`Limits.probe` found, by (writable, network).
_probed: dict[tuple[tuple[str, ...], bool], dict[str, int | bool]] = {}


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


#: Empty test folders ready for the next test; removed at exit.
_idle_workdirs: list[str] = []
#: More idle folders than tests that can run at once is waste.
_IDLE_LIMIT = 64
#: The process that owns the pool (a forked child must not hand it on).
_OWNER = os.getpid()


def reap(pid: int) -> None:
    """Collect the exit of a killed test's process later: waiting for a large process
    to tear down costs 1-2 ms, and nothing needs its status."""
    _unreaped.append(pid)
    reap_all()


#: Killed test processes not yet collected (see :func:`reap`).
_unreaped: list[int] = []


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` (a pipe or a file takes what it can at a time). Raises OSError."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def drop_idle_workdirs() -> None:
    """Remove the folders kept for the next tests: a fork server that ends removes the folders of the
    children it kills, and one that astreduce killed a moment before may already be kept here."""
    while _idle_workdirs and os.getpid() == _OWNER:
        remove_workdir(_idle_workdirs.pop())


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
    """An empty folder of its own for one test, in this process's room folder (:class:`_Claim`)."""
    if _idle_workdirs and os.getpid() == _OWNER:
        return _idle_workdirs.pop()
    room = _Claim.room()
    try:
        os.chmod(room, _ROOM_MODE)  # what a candidate may have changed (it cannot write there, but it owns it)
    except OSError:
        pass
    return tempfile.mkdtemp(prefix=f"{_Claim.token()}-", dir=room)


#: A room folder's mode: its owner may make and enter folders there, not list it, so that a candidate,
#: which cannot write there but owns it, does not even learn the names of the other tests' folders.
_ROOM_MODE = 0o300


def room_folder() -> str:
    """The folder every test folder of this process is made in (made with the first): a fork server's room
    may write only beneath it."""
    return _Claim.room()


class _Claim:
    """What says this process's test folders are in use, so that another astreduce may remove them
    once it is gone.

    A test's folder cannot outlive a ``kill -9`` of astreduce by its own
    doing, and the temporary folder is shared. So the first test folder
    makes a claim: a lock file ``astreduce-TOKEN.lock`` held with ``flock``
    for the life of this process (a forked child drops its copy, so that no
    candidate can unlock it; a killed astreduce's children die with it), and
    a room folder ``astreduce-TOKEN/`` beside it, in which every test folder
    is made (``astreduce-TOKEN/astreduce-TOKEN-…``: one folder beneath which
    a fork server's confinement lets its children write, and nothing else of
    the temporary folder). The next astreduce that makes a claim takes the
    lock of every claim nobody holds, and removes that claim's room (and its
    folders of the layout before rooms, ``astreduce-TOKEN-…`` beside the
    lock). A random token, not a pid: pids are reused, and differ between
    the containers that may share one temporary folder. Where the temporary
    folder cannot lock or link, the room is made unclaimed, as folders were
    before claims.
    """

    _token: str | None = None
    _fd: int | None = None
    _room: str | None = None

    @classmethod
    def token(cls) -> str:
        if cls._token is None:
            made = cls._make()
            cls._token = made or "astreduce"
            if made:
                _sweep_unclaimed(made)
        return cls._token

    @classmethod
    def room(cls) -> str:
        """This process's room folder (made on first use)."""
        if cls._room is None or not os.path.isdir(cls._room):
            token = cls.token()
            folder = tempfile.gettempdir()
            if cls._fd is not None:
                room = os.path.join(folder, token)
                try:
                    os.mkdir(room, 0o700)
                except FileExistsError:
                    info = os.lstat(room)
                    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
                        room = tempfile.mkdtemp(prefix=f"{token}-room-")  # not ours: a folder of our own instead
            else:
                room = tempfile.mkdtemp(prefix="astreduce-room-")
            os.chmod(room, _ROOM_MODE)
            cls._room = room
        return cls._room

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
        """At exit, when its tests have ended: this process's room goes (with the folder of a test that never
        ended), then its claim; a room that will not go keeps its claim's lock file (unlocked once this process
        is gone), for the next astreduce to try again."""
        gone = True
        if cls._room is not None:
            gone = remove_workdir(cls._room)
            cls._room = None
        if cls._fd is not None and cls._token is not None:
            if gone:
                Path(tempfile.gettempdir(), f"{cls._token}.lock").unlink(missing_ok=True)
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


#: The name of a claim: a lock file's name less ``.lock``, its room's name, the prefix of its folders.
_TOKEN = re.compile(r"astreduce-[0-9a-f]{12}")


def _sweep_unclaimed(mine: str) -> None:
    """Remove the rooms (and test folders) of every claim no process holds any more (see :class:`_Claim`).
    Never raises: what cannot be removed is named at exit."""
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
            gone = True
            for stale in [folder / token, *folder.glob(f"{token}-*")]:
                if stale.is_dir() and not stale.is_symlink():
                    gone = remove_workdir(str(stale)) and gone
            if gone:
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


def remove_workdir(path: str) -> bool:
    """Remove a test's folder, whatever the candidate left in it (:func:`~astreduce.run.removal.remove_tree`:
    any depth, links removed and never followed, parts made read-only). A killed candidate may add to it while
    it dies: a folder that will not go is tried again a few times, and at exit. Never raises; one that will
    not go even then is named in one line when this process exits. Whether it is gone."""
    for delay in _REMOVAL_DELAYS:
        try:
            gone: bool = removal.remove_tree(path)  # type: ignore[no-untyped-call]  # free of annotations
        except Exception:  # never a traceback for a folder: it is named at exit instead
            gone = False
        if gone or not os.path.lexists(path):
            _unremoved.pop(path, None)
            return True
        time.sleep(delay)
    _unremoved.setdefault(path, None)
    return False


#: Pauses between the tries of :func:`remove_workdir` (the last before it gives up).
_REMOVAL_DELAYS = (0.001, 0.01, 0.05)


#: Folders (and cgroups) that could not be removed, named when this process exits.
_unremoved: dict[str, None] = {}


def reap_all() -> None:
    """Collect every killed test process of this one that has ended (see :func:`reap`)."""
    still: list[int] = []
    for child in _unreaped:
        try:
            done, _ = os.waitpid(child, os.WNOHANG)
        except ChildProcessError:
            continue
        if done == 0:
            still.append(child)
    _unreaped[:] = still


@atexit.register
def _at_exit() -> None:
    """This process's end: its cgroups, then its idle folders and its room (see :class:`_Claim`); what would
    not go is named in one line on standard error."""
    if os.getpid() != _OWNER:
        return
    for path in list(_unremoved):  # their processes are dead by now
        remove_workdir(path)
    _unremoved.update(dict.fromkeys(str(path) for path in remove_cgroups(between=reap_all)))
    drop_idle_workdirs()
    _Claim.end()
    if _unremoved:
        left = list(_unremoved)
        shown = ", ".join(left[:3]) + (f" and {len(left) - 3} more" if len(left) > 3 else "")
        try:
            sys.stderr.write(f"astreduce: could not remove what a test left: {shown}; remove it by hand\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
