"""Pids cgroups: one per test, capping its processes and finding every one of them to kill, grandchildren
that left the process group included (as root, where cgroup v1's pids controller is mounted)."""

from __future__ import annotations

import itertools
import os
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

_CGROUP_ROOT = Path("/sys/fs/cgroup/pids")
_counter = itertools.count()
#: More idle cgroups than tests that can run at once is waste.
_IDLE_LIMIT = 64
#: The process that owns the pool (a forked child must not hand it on).
_OWNER = os.getpid()
_swept = False
#: Empty cgroups (and their pids.max) ready for the next test; removed at exit.
_idle_cgroups: list[tuple[Path, int]] = []
#: Every cgroup this process made and has not removed: each is killed and removed at exit.
_made_cgroups: set[Path] = set()
#: Cgroups whose test ended while its killed process was still exiting (and their pids.max): looked at again,
#: without waiting, each time a cgroup is handed out (:func:`_settle`). Waiting there for the exit, a
#: millisecond at a time, was a fifth of the wall-clock time of the email package's reduction at -j 2.
_draining: list[tuple[Path, int]] = []
#: More cgroups than this still draining: the next one is waited for, as before.
_DRAINING_LIMIT = 8


class ProcessGroupCap:
    """A pids cgroup for one test: caps its process count and finds every process to kill.

    When the cgroup cannot be created (not root, no cgroup v1 pids
    controller), :attr:`path` is ``None`` and only the process group is killed.
    A cgroup left empty by its test is kept for the next one (see :data:`_idle_cgroups`).

    The test's first process joins before it is confined (:meth:`join`, or
    a process running no code of the user's moves it there: the fork
    server): a confined process can write no ``cgroup.procs``, so no
    candidate can move another process into its cgroup to have it killed,
    or out of one. Every cgroup this process made is killed and removed at
    its exit (:func:`_at_exit`).
    """

    def __init__(self, limit: int, enabled: bool = True) -> None:
        self.path: Path | None = None
        self.limit = limit
        self.spawned = False
        """In the test's process: whether it started, or was about to start, a process (:meth:`watch_spawning`)."""
        if not enabled:
            return
        _settle()
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
        except OSError:
            return
        _made_cgroups.add(candidate)
        try:
            (candidate / "pids.max").write_text(f"{limit}\n")
            self.path = candidate
        except OSError:
            _remove_cgroup(candidate)

    def join(self, pid: int | None = None) -> None:
        """Move the calling process (the test's first, before it is confined), or process ``pid``, into the cgroup."""
        if self.path is not None:
            try:
                (self.path / "cgroup.procs").write_text(f"{os.getpid() if pid is None else pid}\n")
            except OSError:
                pass

    def join_before_spawning(self) -> None:
        """Join the cgroup now, before the process is confined, and note when it starts a process (:meth:`watch_spawning`)."""
        self.join()
        self.watch_spawning()

    def watch_spawning(self) -> None:
        """Note (:attr:`spawned`) when the calling process is about to start another: a test that started
        none needs no look into its cgroup at its end (reading and killing its members costs 1-2 ms).

        An audit hook watches for the events that start a process (``os.fork``,
        ``subprocess.Popen``, ``os.system``, ``os.exec*``, ``os.posix_spawn``,
        any foreign call through ``ctypes``), and the call multiprocessing's
        spawn uses is wrapped too. A process started some other way (a C
        extension's own fork) is still in the cgroup: the test's end finds
        it when it looks (:meth:`release_unused`).
        """
        if self.path is None:
            return

        def note() -> None:
            self.spawned = True

        def hook(event: str, args: tuple[object, ...]) -> None:
            if not self.spawned and event in _SPAWNING_EVENTS:
                note()

        sys.addaudithook(hook)
        try:
            import _posixsubprocess

            fork_exec = _posixsubprocess.fork_exec

            def noting_fork_exec(*args: Any, **kwargs: Any) -> Any:  # fork_exec's own signature, passed on as it is
                note()
                return fork_exec(*args, **kwargs)

            _posixsubprocess.fork_exec = noting_fork_exec
        except (ImportError, AttributeError):
            pass

    def unused(self) -> bool:
        """True when no live process of the test is in the cgroup (or there is no cgroup to look in)."""
        return self.path is None or _live_members(self.path) == []

    def release_unused(self) -> None:
        """Hand back the cgroup of a test that started no process (its report said so) for the next test. Its
        killed process may still be exiting (a large one takes milliseconds), and one started where no audit
        event shows may live: they are killed now, and the cgroup drains while the next test runs."""
        if self.path is not None and os.getpid() == _OWNER and len(_idle_cgroups) < _IDLE_LIMIT:
            live = _live_members(self.path)
            if live == []:
                _idle_cgroups.append((self.path, self.limit))
                self.path = None
                return
            if live is not None and len(_draining) < _DRAINING_LIMIT:
                _kill(live)
                _draining.append((self.path, self.limit))
                self.path = None
                return
        self.kill_all()

    def kill_all(self) -> None:
        """Kill every live process left in the cgroup, then remove it (or keep it for the next test)."""
        if self.path is None:
            return
        path, self.path = self.path, None
        empty = _kill_members(path)
        if empty and len(_idle_cgroups) < _IDLE_LIMIT and os.getpid() == _OWNER:
            _idle_cgroups.append((path, self.limit))
        else:
            _remove_cgroup(path)


def discard_cgroup(path: str) -> bool:
    """Kill what is left in the cgroup at ``path`` and remove it (the fork server's end, for the tests it
    could not hand back); whether it is gone."""
    _kill_members(Path(path))
    return _remove_cgroup(Path(path))


def _live_members(path: Path) -> list[int] | None:
    """The processes in the cgroup at ``path`` that have not exited (zombies have); None when it cannot be read."""
    try:
        return [pid for pid in (int(p) for p in (path / "cgroup.procs").read_text().split()) if not is_zombie(pid)]
    except (OSError, ValueError):
        return None


def _kill(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _settle() -> None:
    """The draining cgroups whose processes have all exited go idle (or are removed); what still lives in the
    others is killed again."""
    if os.getpid() != _OWNER:
        return
    still = []
    for path, limit in _draining:
        live = _live_members(path)
        if live:
            _kill(live)
            still.append((path, limit))
        elif live is not None and len(_idle_cgroups) < _IDLE_LIMIT:
            _idle_cgroups.append((path, limit))
        else:
            _kill_members(path)
            _remove_cgroup(path)
    _draining[:] = still


def _kill_members(path: Path, patience: int = 50) -> bool:
    """SIGKILL every live process in the cgroup at ``path`` until none is left (``patience`` looks, a
    millisecond apart); whether it is then empty (a killed process leaves ``cgroup.procs`` at once, and
    ``pids.current`` once it is reaped)."""
    procs = path / "cgroup.procs"
    for _ in range(patience):
        live = _live_members(path)
        if not live:
            break
        _kill(live)
        time.sleep(0.001)
    try:
        return not procs.read_text().split() and (path / "pids.current").read_text().strip() == "0"
    except OSError:
        return False


#: Audit events that start a process (or may: any foreign call through ctypes).
_SPAWNING_EVENTS = frozenset(
    {
        "os.fork", "os.forkpty", "os.posix_spawn", "os.spawn", "os.system", "os.exec",
        "os.startfile", "subprocess.Popen", "pty.spawn", "ctypes.call_function", "ctypes.dlopen",
    }
)


def _remove_cgroup(path: Path) -> bool:
    """Remove an empty cgroup; False while processes (zombies not yet reaped among them) keep it busy."""
    try:
        path.rmdir()
    except FileNotFoundError:
        pass
    except OSError:
        return False
    _made_cgroups.discard(path)
    return True


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


def is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X")
    except (OSError, IndexError):
        return True


def remove_cgroups(patience: float = 2.0, between: Callable[[], None] = lambda: None) -> list[Path]:
    """Kill what is left in every cgroup this process made, and remove them all: those that would not go.
    Killed processes keep a cgroup busy until they are reaped (``between`` reaps them), so this tries
    again for up to ``patience`` seconds."""
    while _idle_cgroups:
        _made_cgroups.add(_idle_cgroups.pop()[0])
    while _draining:
        _made_cgroups.add(_draining.pop()[0])
    deadline = time.monotonic() + patience
    while _made_cgroups:
        for path in list(_made_cgroups):
            _kill_members(path, patience=1)
            between()
            _remove_cgroup(path)
        if not _made_cgroups or time.monotonic() >= deadline:
            break
        time.sleep(0.005)
    return sorted(_made_cgroups)


__all__ = ["ProcessGroupCap", "discard_cgroup", "is_zombie", "remove_cgroups"]
