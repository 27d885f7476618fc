"""The sandbox every test runs in: its own folder, limits, and a clean kill.

What it does:

* every test runs in a fresh temporary directory, which is removed afterwards;
* the test runs in its own process group, and on a timeout or when its
  result is no longer wanted the whole group is killed;
* when a pids cgroup can be created (as root on Linux), every process the
  test starts — grandchildren that left the process group included — is
  counted (at most :attr:`Limits.processes`) and killed at the end;
  otherwise RLIMIT_NPROC limits the user's processes (root ignores that);
* limits on CPU time, address space (memory) and file size (RLIMIT_CPU,
  RLIMIT_AS, RLIMIT_FSIZE).

What it does not do: the candidate runs as the user who runs astreduce, so
it can read and write any file that user can, outside its folder too, and
use the network. Reduce untrusted input in a container or virtual machine.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import resource
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

_CGROUP_ROOT = Path("/sys/fs/cgroup/pids")

#: The shortest default per-test timeout: 10x the original's run time is too
#: tight for fast originals on a busy machine, where a timeout would pass for UNRESOLVED.
MIN_TIMEOUT = 2.0
_counter = itertools.count()


@dataclass
class Limits:
    """Resource limits applied in a test's process before it runs a candidate."""

    cpu_seconds: int = 60
    memory_bytes: int = 4 << 30
    file_bytes: int = 256 << 20
    processes: int = 256

    def apply(self) -> None:
        """Set the limits on the calling process (in the child, before exec'ing anything)."""
        for which, value in (
            (resource.RLIMIT_CPU, self.cpu_seconds),
            (resource.RLIMIT_AS, self.memory_bytes),
            (resource.RLIMIT_FSIZE, self.file_bytes),
            (resource.RLIMIT_NPROC, self.processes),
        ):
            try:
                hard = resource.getrlimit(which)[1]
                limit = value if hard == resource.RLIM_INFINITY else min(value, hard)
                resource.setrlimit(which, (limit, hard))
            except (ValueError, OSError):  # a limit this system will not let us set: run without it
                pass

    def for_timeout(self, timeout: float) -> Limits:
        """These limits with the CPU limit just above ``timeout``; the address
        space never below twice what the (forking) parent already uses."""
        return Limits(
            cpu_seconds=int(timeout) + 2,
            memory_bytes=max(self.memory_bytes, 2 * virtual_memory()),
            file_bytes=self.file_bytes,
            processes=self.processes,
        )


def die_with_parent() -> None:
    """Ask Linux to SIGKILL the calling process when its parent dies (``kill -9 astreduce``).

    Without it a candidate that sleeps would outlive a killed reducer.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the process group kill on timeout remains
        pass


def virtual_memory() -> int:
    """This process's address-space size: a forked child starts with all of it."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return 0


class ProcessGroupCap:
    """A pids cgroup for one test: caps its process count and finds every process to kill.

    When the cgroup cannot be created (not root, no cgroup v1 pids
    controller), :attr:`path` is ``None`` and only the process group is killed.
    """

    def __init__(self, limit: int, enabled: bool = True) -> None:
        self.path: Path | None = None
        if not enabled:
            return
        candidate = _CGROUP_ROOT / f"astreduce-{os.getpid()}-{next(_counter)}"
        try:
            candidate.mkdir()
            (candidate / "pids.max").write_text(f"{limit}\n")
            self.path = candidate
        except OSError:
            self.path = None

    def join(self) -> None:
        """Move the calling process (the test's first process) into the cgroup."""
        if self.path is not None:
            try:
                (self.path / "cgroup.procs").write_text(f"{os.getpid()}\n")
            except OSError:
                pass

    def kill_all(self) -> None:
        """Kill every live process left in the cgroup, then remove it."""
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
        try:
            self.path.rmdir()
        except OSError:  # zombies not yet reaped keep it busy: leave it, it is empty of live processes
            pass


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


def make_workdir() -> str:
    return tempfile.mkdtemp(prefix="astreduce-")


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
