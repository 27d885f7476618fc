"""The hostile corpus: programs whose candidates try to reach outside their test, reduced for real.

Each program of ``tests/data/hostile/`` tries one thing a candidate must
not do (write, delete, rename, chmod or truncate a file outside its folder,
swap in a symlink, climb out with ``..``, connect or bind, signal a process
outside its test or astreduce itself, outlive its test, fork, fill the disk
or the memory, close astreduce's descriptors), then raises the target
exception. Each is reduced by ``astreduce reduce`` as a subprocess, under
the exec oracle and under ``--run``, while the test watches the world
outside: a folder of files, a TCP listener on 127.0.0.1 and a process
that records every signal it gets. Nothing outside may change, no
connection may arrive, no signal may be delivered; astreduce must exit
with a documented status (0 with a result, or one line) every time.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from astreduce.oracles import confine

HOSTILE = Path(__file__).resolve().parent / "data" / "hostile"
PROGRAMS = sorted(HOSTILE.glob("*.py"))
#: Programs that need what confinement denies: astreduce stops with one line naming the flag.
NEEDS_MORE = {"write_outside_uncaught": "--allow-write"}
#: A child of this program acts seconds after its test: the world is looked at after that.
LATE = {"outlive_its_test": 4.0}

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


@dataclass
class World:
    """What a hostile candidate must not touch."""

    outside: Path
    port: int
    victim: subprocess.Popen[str]
    victim_log: Path
    accepted: list[bytes] = field(default_factory=list)

    def snapshot(self) -> dict[str, tuple[bytes, int, int]]:
        return {
            p.relative_to(self.outside).as_posix(): (p.read_bytes() if p.is_file() else b"", p.stat().st_mode, p.stat().st_mtime_ns)
            for p in sorted(self.outside.rglob("*"))
        }


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    root = tmp_path_factory.mktemp("hostile-world")
    outside = root / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "keep.txt").write_text("the user's file\n")
    (outside / "sub" / "inner.txt").write_text("the user's other file\n")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    accepted: list[bytes] = []
    stop = threading.Event()

    def listen() -> None:
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except OSError:
                continue
            accepted.append(connection.recv(100))
            connection.close()

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    log = root / "victim.log"
    victim = subprocess.Popen([sys.executable, "-c", VICTIM, str(log)], stdout=subprocess.PIPE, text=True, start_new_session=True)
    assert victim.stdout is not None and victim.stdout.readline() == "ready\n"
    try:
        yield World(outside, server.getsockname()[1], victim, log, accepted)
    finally:
        stop.set()
        thread.join(2)
        server.close()
        victim.kill()
        victim.wait()
        assert victim.stdout is not None
        victim.stdout.close()


@pytest.mark.parametrize("oracle", ["exec", "run"])
@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_a_hostile_candidate_changes_nothing_outside_its_test(program: Path, oracle: str, world: World, tmp_path: Path) -> None:
    before = world.snapshot()
    shutil.copy(program, tmp_path / "prog.py")
    env = {
        **os.environ, "HOSTILE_OUTSIDE": str(world.outside), "HOSTILE_PORT": str(world.port),
        "HOSTILE_VICTIM": str(world.victim.pid),
    }
    criteria = ["--expect", "AssertionError:hostile"] if oracle == "exec" else ["--run", "{python} {file}", "--stderr", "AssertionError: hostile"]
    done = subprocess.run(
        [sys.executable, "-m", "astreduce", "reduce", "prog.py", *criteria, "-o", "out.py", "--no-format", "-q", "-j", "2",
         "--report", "report.json"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    time.sleep(LATE.get(program.stem, 0.0))
    assert done.returncode in (0, 1, 2), done.stderr
    if done.returncode == 0:
        assert "hostile" in (tmp_path / "out.py").read_text()
    else:
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("astreduce: "), done.stderr
    if program.stem in NEEDS_MORE:
        assert done.returncode == 2 and NEEDS_MORE[program.stem] in done.stderr, done.stderr
    assert world.snapshot() == before
    assert world.accepted == []
    assert world.victim.poll() is None and not world.victim_log.exists()
    assert not (Path(tempfile.gettempdir()) / "escaped-by-chdir.txt").exists()
    assert (tmp_path / "prog.py").read_bytes() == program.read_bytes()


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
