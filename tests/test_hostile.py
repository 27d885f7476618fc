"""The hostile corpus: programs whose candidates try to reach outside their room, reduced for real.

Each program of ``tests/data/hostile/`` tries one thing a candidate must
not do (write, delete, rename, chmod or truncate a file outside its folder,
swap in a symlink, climb out with ``..`` or through ``/proc``, remount its
view writable, connect or bind over TCP, MPTCP, UDP, a Unix socket by path
or by abstract name, vsock, attach another process's shared memory or leave
its own IPC objects behind, signal, trace or move a process outside its
test or astreduce itself, outlive its test, fork, fill the disk or the
memory, nest folders deeper than Python's stack, close astreduce's
descriptors), then raises the target exception. Each is reduced under the
exec oracle (through the API, in this process) and under ``--run`` (by
``astreduce reduce`` as a subprocess), while the test watches the world
outside: a folder of files, listeners on 127.0.0.1 (TCP and UDP), on a Unix
socket by path (stream and datagram) and on an abstract one, a shared-memory
segment of this process, and a process that records every signal it gets,
its cgroup and its OOM score. Nothing outside may change, no connection or
datagram may arrive, no process outside may be signalled or moved, no IPC
object may be left in the host's namespace, and a run of ``astreduce``
leaves no cgroup and no folder behind; astreduce ends with a documented
status (0 with a result, or one line) every time.
"""

from __future__ import annotations

import ctypes
import glob
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from astreduce.errors import NotReproducibleError, UsageError
from astreduce.oracles import confine
from astreduce.oracles.options import OracleOptions
from astreduce.reduce.single import ReduceConfig, reduce_with

HOSTILE = Path(__file__).resolve().parent / "data" / "hostile"
PROGRAMS = sorted(HOSTILE.glob("*.py"))
#: Programs that need what confinement denies: astreduce stops with one line naming the flag.
NEEDS_MORE = {"write_outside_uncaught": "--allow-write"}
#: Programs that are not hostile at all: they must reduce as they would unconfined.
HARMLESS = {"write_in_its_folder_by_a_relative_path"}
#: A child of this program acts seconds after its test: the world is looked at after that.
LATE = {"outlive_its_test": 4.0}
#: The System V IPC keys the programs that leave IPC objects use.
LEFT_KEYS = (0x4F5E7A01, 0x4F5E7A02, 0x4F5E7A03)
#: What the foreign shared-memory segment holds.
SEGMENT = b"the segment of another process"

pytestmark = pytest.mark.skipif(confine.abi() < 6, reason="this kernel's Landlock cannot confine all of it (ABI 6 needed)")

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

    def __init__(self, family: int, kind: int, address: object) -> None:
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
        assert _left_ipc() == []
        assert not (Path(tempfile.gettempdir()) / "escaped-by-chdir.txt").exists()


def _left_ipc() -> list[str]:
    """The IPC objects of the keys the programs use that are in this (the host's) IPC namespace."""
    found = []
    for kind in ("shm", "sem", "msg"):
        try:
            lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]
        except OSError:
            continue
        found += [f"{kind} {line.split()[0]}" for line in lines if int(line.split()[0]) in LEFT_KEYS]
    return found


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    root = tmp_path_factory.mktemp("hostile-world")
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


def _bound(text: str, env: dict[str, str]) -> str:
    """A program with its ``os.environ["HOSTILE_..."]`` replaced by their values: a test run in this process
    reaches the fork server's rooms, which have this process's environment of when the server started."""
    return re.sub(r'os\.environ\["(HOSTILE_[A-Z_]+)"\]', lambda found: repr(env[found.group(1)]), text)


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_a_hostile_candidate_of_the_exec_oracle_changes_nothing_outside_its_room(program: Path, world: World, tmp_path: Path) -> None:
    before = world.snapshot()
    text = _bound(program.read_text(), world.env)
    config = ReduceConfig(
        options=OracleOptions(expect="AssertionError:hostile"), jobs=2, format=False, filename="prog.py", search_path=str(tmp_path),
    )
    try:
        result = reduce_with(text, config)
    except UsageError as error:
        assert program.stem in NEEDS_MORE and NEEDS_MORE[program.stem] in str(error), error
    except NotReproducibleError:  # what it did to itself (closed the report's pipe): no target
        assert program.stem not in {*NEEDS_MORE, *HARMLESS}
    else:
        assert program.stem not in NEEDS_MORE and "hostile" in result.text and result.verified
    time.sleep(LATE.get(program.stem, 0.0))
    world.check(before)


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_a_hostile_candidate_of_a_command_changes_nothing_outside_its_room(program: Path, world: World, tmp_path: Path) -> None:
    before = world.snapshot()
    shutil.copy(program, tmp_path / "prog.py")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {**os.environ, **world.env, "TMPDIR": str(temporary)}
    done = subprocess.run(
        [sys.executable, "-m", "astreduce", "reduce", "prog.py", "--run", "{python} {file}", "--stderr", "AssertionError: hostile",
         "-o", "out.py", "--no-format", "-q", "-j", "2", "--report", "report.json"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    time.sleep(LATE.get(program.stem, 0.0))
    if program.stem in NEEDS_MORE:
        assert done.returncode == 2 and NEEDS_MORE[program.stem] in done.stderr, done.stderr
    elif program.stem in HARMLESS:
        assert done.returncode == 0 and "hostile" in (tmp_path / "out.py").read_text(), done.stderr
    else:
        assert done.returncode in (0, 1, 2), done.stderr
    if done.returncode == 0:
        assert "hostile" in (tmp_path / "out.py").read_text()
    else:
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("astreduce: "), done.stderr
    world.check(before)
    assert (tmp_path / "prog.py").read_bytes() == program.read_bytes()
    assert list(temporary.iterdir()) == []  # every folder and claim gone
    assert _cgroups_of_gone_processes() == []


def _cgroups_of_gone_processes() -> list[str]:
    """astreduce's cgroups whose process has ended: each process removes its own at its exit."""
    left = []
    for path in glob.glob("/sys/fs/cgroup/pids/astreduce-*-*"):
        owner = Path(path).name.split("-")[1]
        if owner.isdigit() and not Path(f"/proc/{owner}").exists():
            left.append(path)
    return left


def test_allow_write_lets_a_candidate_write_there_and_only_there(world: World, tmp_path: Path) -> None:
    before = world.snapshot()
    shutil.copy(HOSTILE / "write_outside_uncaught.py", tmp_path / "prog.py")
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    env = {**os.environ, "HOSTILE_OUTSIDE": str(allowed)}
    done = subprocess.run(
        [sys.executable, "-m", "astreduce", "reduce", "prog.py", "--allow-write", str(allowed), "-o", "out.py", "-q"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stderr
    # the file's content is whatever the last candidate that opened it wrote (one without the
    # write() still fails the same way), so only its existence says the write was allowed
    assert (allowed / "report.csv").exists()
    assert world.snapshot() == before


def test_the_user_is_told_when_confinement_stops_the_original(world: World, tmp_path: Path) -> None:
    shutil.copy(HOSTILE / "write_outside_uncaught.py", tmp_path / "prog.py")
    env = {**os.environ, "HOSTILE_OUTSIDE": str(world.outside)}
    done = subprocess.run(
        [sys.executable, "-m", "astreduce", "reduce", "prog.py", "-o", "out.py", "-q"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 2
    line = done.stderr.strip()
    assert line.startswith(f"astreduce: the input fails otherwise when confined: it was denied writing {world.outside / 'report.csv'} ")
    assert f"--allow-write {world.outside}" in line and "--no-confine" in line
    assert not (world.outside / "report.csv").exists()  # nothing ran unconfined to find that out


#: A reporter that writes its CSV under WORK/build and fails on a bad row. Its candidates hoist and cut paths:
#: ``os.path.join(WORK, "build")`` becomes ``WORK``, and the report lands beside the user's files.
REPORTER = '''\
import csv
import os

WORK = {work!r}
ROWS = [("apples", 3, 0.5), ("pears", 2, 0.75), ("plums", 0, 1.25)]


def write_report(rows, folder):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "report.csv")
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["fruit", "count", "price"])
        for name, count, price in rows:
            writer.writerow([name, count, f"{{price:.2f}}"])
    return path


def average_price(path):
    with open(path, newline="") as handle:
        counted = [(int(row["count"]), float(row["price"])) for row in csv.DictReader(handle)]
    return sum(c * p for c, p in counted) / sum(c for c, _ in counted if c > 1)


assert average_price(write_report(ROWS, os.path.join(WORK, "build"))) < 0.6, "average too high"
'''


def test_a_reporter_writes_only_where_it_is_allowed_in_ten_runs_of_ten(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "build").mkdir(parents=True)
    (work / "notes.txt").write_text("the user's notes\n")
    (tmp_path / "report.py").write_text(REPORTER.format(work=str(work)))

    def listing() -> list[str]:
        return sorted(p.relative_to(work).as_posix() for p in work.rglob("*") if "build" not in p.relative_to(work).parts)

    before = listing()
    for run in range(10):
        # one test at a time: every candidate writes and reads the same WORK/build/report.csv, so two at once
        # race (one truncates what the other reads) and the original is rightly found flaky
        done = subprocess.run(
            [sys.executable, "-m", "astreduce", "reduce", "report.py", "--allow-write", str(work / "build"),
             "-o", f"out{run}.py", "-q", "-j", "1"],
            cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False,
        )
        assert done.returncode == 0, done.stderr
        assert listing() == before, f"run {run}: {listing()}"
    assert (work / "notes.txt").read_text() == "the user's notes\n"
