"""The hostile corpus: programs whose candidates try to reach outside their room, reduced for real.

Each program of ``tests/data/hostile/`` tries one thing a candidate must
not do (write, delete, rename, chmod or truncate a file outside its folder,
swap in a symlink, climb out with ``..`` or through ``/proc``, remount its
view writable, connect or bind over TCP, MPTCP, UDP, a Unix socket by path
or by abstract name, vsock, attach another process's shared memory or leave
its own IPC objects behind, signal, trace or move a process outside its
test or astreduce itself, outlive its test, fork, fill the disk or the
memory, close astreduce's descriptors), then raises the target exception.
Each is reduced under the exec oracle (through the API, in this process)
and under ``--run`` (by ``astreduce reduce`` as a subprocess; the suite
takes the programs that route handles its own way, ``COMMAND_ROUTE``, and
``-m slow`` the rest), while the test watches the world
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

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile_world import World, cgroups_of_gone_processes, make_world, run_watched

from astreduce.errors import NotReproducibleError, UsageError
from astreduce.run import confine
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

pytestmark = pytest.mark.skipif(confine.abi() < 6, reason="this kernel's Landlock cannot confine all of it (ABI 6 needed)")


#: Programs whose run takes most of the corpus's time (filling the memory up to its limit, 20-30 s each):
#: run with -m slow; tests/test_sandbox.py keeps a candidate that allocates without end in the suite.
SLOW_PROGRAMS = frozenset({"exhaust_the_memory"})
CASES = [pytest.param(p, id=p.stem, marks=[pytest.mark.slow] if p.stem in SLOW_PROGRAMS else []) for p in PROGRAMS]

#: Through ``--run`` (a process per candidate, started by astreduce's launcher in a folder it writes) the suite
#: runs the programs that reach for what that route does its own way: the process tree and its groups and
#: cgroups, the candidate's folder and working directory, its descriptors and limits, and one of each kind of
#: socket and IPC object. The others (a file, socket or IPC object outside, which the same room denies on both
#: routes) go through ``--run`` with -m slow; every program goes through the exec oracle in the suite.
COMMAND_ROUTE = frozenset({
    "fork_without_end", "kill_its_parent", "kill_the_reducers_group", "outlive_its_test", "signal_a_process_outside",
    "signal_every_process_of_the_victims_kind", "move_a_process_into_its_cgroup", "trace_its_parent",
    "raise_the_oom_score_of_a_process_outside", "swap_its_folder_for_a_symlink", "write_in_its_folder_by_a_relative_path",
    "write_through_dotdot_after_chdir", "write_outside_uncaught", "overwrite_a_file_outside", "remount_its_view_writable",
    "fill_the_disk", "move_a_file_into_its_folder", "close_every_descriptor", "connect_to_a_local_server",
    "send_a_udp_datagram", "leave_a_shared_memory_segment",
})
COMMAND_CASES = [
    pytest.param(p, id=p.stem, marks=[] if p.stem in COMMAND_ROUTE and p.stem not in SLOW_PROGRAMS else [pytest.mark.slow])
    for p in PROGRAMS
]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    yield from make_world(tmp_path_factory.mktemp("hostile-world"))


def _bound(text: str, env: dict[str, str]) -> str:
    """A program with its ``os.environ["HOSTILE_..."]`` replaced by their values: a test run in this process
    reaches the fork server's rooms, which have this process's environment of when the server started."""
    return re.sub(r'os\.environ\["(HOSTILE_[A-Z_]+)"\]', lambda found: repr(env[found.group(1)]), text)


@pytest.mark.parametrize("program", CASES)
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


@pytest.mark.parametrize("program", COMMAND_CASES)
def test_a_hostile_candidate_of_a_command_changes_nothing_outside_its_room(program: Path, world: World, tmp_path: Path) -> None:
    before = world.snapshot()
    shutil.copy(program, tmp_path / "prog.py")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {**os.environ, **world.env, "TMPDIR": str(temporary)}
    done, tree = run_watched(
        [sys.executable, "-m", "astreduce", "reduce", "prog.py", "--run", "{python} {file}", "--stderr", "AssertionError: hostile",
         "-o", "out.py", "--no-format", "-q", "-j", "2", "--report", "report.json"],
        cwd=tmp_path, env=env, timeout=600,
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
    assert cgroups_of_gone_processes(tree) == []


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


def test_a_reporter_writes_only_where_it_is_allowed_run_after_run(tmp_path: Path) -> None:
    """Four whole reductions one after the other (each leaves the folder as it found it for the next)."""
    work = tmp_path / "work"
    (work / "build").mkdir(parents=True)
    (work / "notes.txt").write_text("the user's notes\n")
    (tmp_path / "report.py").write_text(REPORTER.format(work=str(work)))

    def listing() -> list[str]:
        return sorted(p.relative_to(work).as_posix() for p in work.rglob("*") if "build" not in p.relative_to(work).parts)

    before = listing()
    for run in range(4):
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
