"""The world outside astreduce's room, as the hostile tests watch it (``test_hostile.py``, ``test_room.py``).

Canary files, listeners outside the room (TCP and UDP on 127.0.0.1, a Unix
socket by path, stream and datagram, an abstract one), a System V
shared-memory segment of this process, and a victim process that records
every signal it gets; :meth:`World.check` says that nothing of it changed.
"""

from __future__ import annotations

import ctypes
import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: The System V IPC keys the programs that leave IPC objects use.
LEFT_KEYS = (0x4F5E7A01, 0x4F5E7A02, 0x4F5E7A03)
#: What the foreign shared-memory segment holds.
SEGMENT = b"the segment of another process"

VICTIM = """\
import os, signal, sys, time
log = sys.argv[1]
def record(number, frame):
    with open(log, "a") as file:
        file.write(f"{number}\\n")
for number in (signal.SIGTERM, signal.SIGUSR1, signal.SIGINT, signal.SIGHUP):
    signal.signal(number, record)
print("ready", flush=True)
while True:
    time.sleep(1)
"""


class Listener:
    """A socket outside the room that records whatever reaches it (connections and datagrams), in a thread."""

    def __init__(self, family: int, kind: int, address: tuple[str, int] | str) -> None:
        self.socket = socket.socket(family, kind)
        self.socket.bind(address)
        self.stream = kind == socket.SOCK_STREAM
        if self.stream:
            self.socket.listen()
        self.socket.settimeout(0.2)
        self.received: list[bytes] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                if self.stream:
                    connection, _ = self.socket.accept()
                    connection.settimeout(1)
                    try:
                        self.received.append(connection.recv(100) or b"(a connection)")
                    except OSError:
                        self.received.append(b"(a connection)")
                    connection.close()
                else:
                    self.received.append(self.socket.recv(100))
            except OSError:
                continue

    def close(self) -> None:
        self.stop.set()
        self.thread.join(2)
        self.socket.close()


@dataclass
class World:
    """What a hostile candidate must not touch."""

    outside: Path
    env: dict[str, str]
    victim: subprocess.Popen[str]
    victim_log: Path
    listeners: dict[str, Listener]
    segment: int
    libc: ctypes.CDLL
    victim_state: tuple[str, str] = ("", "")

    def snapshot(self) -> dict[str, tuple[bytes, int, int]]:
        return {
            p.relative_to(self.outside).as_posix(): (p.read_bytes() if p.is_file() else b"", p.lstat().st_mode, p.lstat().st_mtime_ns)
            for p in sorted(self.outside.rglob("*"))
        }

    def victims(self) -> tuple[str, str]:
        """The victim's cgroups and OOM score (neither may change)."""
        pid = self.victim.pid
        return Path(f"/proc/{pid}/cgroup").read_text(), Path(f"/proc/{pid}/oom_score_adj").read_text()

    def segment_bytes(self) -> bytes:
        self.libc.shmat.restype = ctypes.c_void_p
        address = self.libc.shmat(self.segment, None, 0o10000)  # SHM_RDONLY
        try:
            return ctypes.string_at(address, len(SEGMENT))
        finally:
            self.libc.shmdt(ctypes.c_void_p(address))

    def check(self, before: dict[str, tuple[bytes, int, int]]) -> None:
        """Nothing outside changed, nothing reached it."""
        assert self.snapshot() == before
        assert {name: got for name, got in ((n, l.received) for n, l in self.listeners.items()) if got} == {}
        assert self.victim.poll() is None and not self.victim_log.exists()
        assert self.victims() == self.victim_state
        assert self.segment_bytes() == SEGMENT
        assert left_ipc() == []
        assert not (Path(tempfile.gettempdir()) / "escaped-by-chdir.txt").exists()


def left_ipc() -> list[str]:
    """The IPC objects of the keys the programs use that are in this (the host's) IPC namespace."""
    found = []
    for kind in ("shm", "sem", "msg"):
        try:
            lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]
        except OSError:
            continue
        found += [f"{kind} {line.split()[0]}" for line in lines if int(line.split()[0]) in LEFT_KEYS]
    return found


def make_world(root: Path) -> Iterator[World]:
    """The world outside, under ``root``, for as long as the caller keeps it (a fixture's ``yield from``)."""
    outside = root / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "keep.txt").write_text("the user's file\n")
    (outside / "sub" / "inner.txt").write_text("the user's other file\n")
    for path in (outside / "keep.txt", outside / "sub" / "inner.txt"):
        path.chmod(0o644)
    sockets = Path(tempfile.mkdtemp(prefix="hostile-sockets-"))
    abstract = f"astreduce-hostile-{os.getpid()}"
    listeners = {
        "tcp": Listener(socket.AF_INET, socket.SOCK_STREAM, ("127.0.0.1", 0)),
        "udp": Listener(socket.AF_INET, socket.SOCK_DGRAM, ("127.0.0.1", 0)),
        "unix": Listener(socket.AF_UNIX, socket.SOCK_STREAM, str(sockets / "stream")),
        "unix-datagram": Listener(socket.AF_UNIX, socket.SOCK_DGRAM, str(sockets / "datagram")),
        "abstract": Listener(socket.AF_UNIX, socket.SOCK_STREAM, "\0" + abstract),
    }
    libc = ctypes.CDLL(None, use_errno=True)
    key = 0x4F5E0000 + os.getpid() % 0xFFFF
    segment = libc.shmget(key, 4096, 0o1000 | 0o2000 | 0o600)  # IPC_CREAT | IPC_EXCL, the owner's only
    assert segment >= 0, ctypes.get_errno()
    libc.shmat.restype = ctypes.c_void_p
    address = libc.shmat(segment, None, 0)
    ctypes.memmove(address, SEGMENT, len(SEGMENT))
    libc.shmdt(ctypes.c_void_p(address))
    log = root / "victim.log"
    victim = subprocess.Popen([sys.executable, "-c", VICTIM, str(log)], stdout=subprocess.PIPE, text=True, start_new_session=True)
    assert victim.stdout is not None and victim.stdout.readline() == "ready\n"
    env = {
        "HOSTILE_OUTSIDE": str(outside), "HOSTILE_PORT": str(listeners["tcp"].socket.getsockname()[1]),
        "HOSTILE_UDP_PORT": str(listeners["udp"].socket.getsockname()[1]), "HOSTILE_UNIX": str(sockets / "stream"),
        "HOSTILE_UNIX_DGRAM": str(sockets / "datagram"), "HOSTILE_ABSTRACT": abstract, "HOSTILE_SHM_KEY": str(key),
        "HOSTILE_VICTIM": str(victim.pid),
    }
    found = World(outside, env, victim, log, listeners, segment, libc)
    found.victim_state = found.victims()
    try:
        yield found
    finally:
        for listener in listeners.values():
            listener.close()
        shutil.rmtree(sockets, ignore_errors=True)
        libc.shmctl(segment, 0, None)  # IPC_RMID
        victim.kill()
        victim.wait()
        assert victim.stdout is not None
        victim.stdout.close()


def _parents() -> dict[int, int]:
    """Every live process's parent, from /proc."""
    found = {}
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            fields = Path(stat).read_bytes().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        found[int(stat.split("/")[2])] = int(fields[1])
    return found


def run_watched(args: list[str], **kwargs: object) -> tuple[subprocess.CompletedProcess[str], set[int]]:
    """``subprocess.run(args, **kwargs)``, and every process of its tree seen while it ran (/proc looked at
    every 50 ms): the processes whose cgroups a test holds the command to (other tests on other workers
    kill astreduce with SIGKILL on purpose; their cgroups wait for the next astreduce's sweep)."""
    seen: set[int] = set()
    stop = threading.Event()
    started: list[int] = []

    def watch() -> None:
        while not stop.wait(0.05):
            if not started:
                continue
            parents = _parents()
            tree = {started[0]}
            grew = True
            while grew:
                more = {pid for pid, parent in parents.items() if parent in tree} - tree
                tree |= more
                grew = bool(more)
            seen.update(tree)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    timeout = kwargs.pop("timeout", None)
    with subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs) as process:  # type: ignore[call-overload]
        started.append(process.pid)
        try:
            out, err = process.communicate(timeout=timeout)
        finally:
            stop.set()
            watcher.join()
    return subprocess.CompletedProcess(args, process.returncode, out, err), seen


def cgroups_of_gone_processes(owners: set[int] | None = None) -> list[str]:
    """astreduce's cgroups whose process has ended (of ``owners`` only, when given): each process removes
    its own at its exit."""
    left = []
    for path in glob.glob("/sys/fs/cgroup/pids/astreduce-*-*"):
        owner = Path(path).name.split("-")[1]
        if owner.isdigit() and not Path(f"/proc/{owner}").exists() and (owners is None or int(owner) in owners):
            left.append(path)
    return left
