"""Issue 43: the eleven escapes found by attacking the room, each a test on every path where it applies.

The room (``docs/sandbox.md``) was attacked as a hostile user would, as root
and as ``nobody``. What a candidate did:

1. wrote a process outside into its test's ``cgroup.procs``, for astreduce's
   cleanup to kill (or to keep in a stale cgroup);
2. reached the network past "no TCP" (MPTCP, UDP, Unix sockets by path and by
   abstract name) and another process's System V shared memory, and left its
   own segment behind;
3. (a conftest) ran unconfined in the warm pytest's configure step;
4. (an import found through ``PYTHONPATH``) ran unconfined in the fork server;
5. left a link to a file outside in a read-only folder: the cleanup's
   ``chmod`` followed it;
6. could not write in its own folder by a relative path;
7. nested 30,000 folders: the cleanup raised ``RecursionError``;
8. 9. 10. 11. (the command line) replaced devices and FIFOs given as outputs,
   failed only at the end on unwritable ones, blocked on a FIFO or read
   ``/dev/zero`` as input, and followed links in an input folder.

A run of one attacking program on a path (:data:`PATHS`: the exec oracle,
``--run``, ``--test``, ``--differential``, ``--python 3.12``, trees, batch,
slice, isolate, compare, the predicate, pytest's conftest and test) tries
problems 1, 2, 5, 6 and 7 at once; it is made once per path in the whole
test run (the first xdist worker to need it makes it, the others read what it
saw) and each problem's test looks at what the world outside saw right after. The program ends with ``raise AssertionError("hostile")`` only
if it could write in its own folder by a relative path, so a FAIL says that
problem 6 is gone. Problems 3, 4 and 8-11 have tests of their own.
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import astreduce
from click.testing import CliRunner
from hostile_world import SEGMENT, World, cgroups_of_gone_processes, left_ipc, make_world, run_watched

from astreduce.cli import main
from astreduce.oracles import Target, Verdict
from astreduce.run import confine
from astreduce.oracles.command import CommandOracle, Criteria
from astreduce.oracles.execution import ExecOracle
from astreduce.oracles.options import OracleOptions
from astreduce.oracles.predicate import PredicateOracle
from astreduce.oracles.tree import TreeOracle
from astreduce.outcome import Outcome

pytestmark = pytest.mark.skipif(confine.abi() < 6, reason="this kernel's Landlock cannot confine all of it (ABI 6 needed)")

PYTHON_312 = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions" / "3.12.1" / "bin" / "python3.12"
IS_ROOT = os.geteuid() == 0
#: How deep the attacking program nests folders on every path: past Python's recursion limit (1,000), where
#: shutil.rmtree raised RecursionError; problem 7's own tests go to 30,000 too, marked slow (on a busy disk, each
#: folder removed costs milliseconds: rm -rf takes a minute for them).
NESTED = 1100
DEPTHS = [1100, pytest.param(30_000, marks=pytest.mark.slow)]

#: The attack, a module the program imports from its folder (so that a slice, a reduction or an isolation of
#: the program has a few statements of its own, and every run of it attacks). ``WORLD`` is filled in.
ATTACK = '''\
import ctypes, glob, os, socket

WORLD = {world!r}


def run(nest=True):
    # 1: a process outside moved into astreduce's cgroups (its cleanup kills what it finds there)
    for procs in glob.glob("/sys/fs/cgroup/pids/astreduce-*/cgroup.procs"):
        try:
            with open(procs, "w") as file:
                file.write(WORLD["HOSTILE_VICTIM"])
        except OSError:
            pass
    # 2: the network and IPC, past "no TCP"
    port, udp = int(WORLD["HOSTILE_PORT"]), int(WORLD["HOSTILE_UDP_PORT"])
    for family, kind, protocol, address in (
        (socket.AF_INET, socket.SOCK_STREAM, 262, ("127.0.0.1", port)),
        (socket.AF_INET, socket.SOCK_DGRAM, 0, ("127.0.0.1", udp)),
        (socket.AF_UNIX, socket.SOCK_STREAM, 0, WORLD["HOSTILE_UNIX"]),
        (socket.AF_UNIX, socket.SOCK_DGRAM, 0, WORLD["HOSTILE_UNIX_DGRAM"]),
        (socket.AF_UNIX, socket.SOCK_STREAM, 0, "\\0" + WORLD["HOSTILE_ABSTRACT"]),
    ):
        try:
            client = socket.socket(family, kind, protocol)
            client.settimeout(1)
            if kind == socket.SOCK_STREAM:
                client.connect(address)
                client.sendall(b"from the room")
            else:
                client.sendto(b"from the room", address)
        except OSError:
            pass
    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmat.restype = ctypes.c_void_p
    segment = libc.shmget(int(WORLD["HOSTILE_SHM_KEY"]), 0, 0)
    if segment >= 0:
        address = libc.shmat(segment, None, 0)
        if address not in (None, ctypes.c_void_p(-1).value):
            ctypes.memmove(address, b"overwritten by a candidate", 26)
    libc.shmget(0x4F5E7A01, 4096, 0o1000 | 0o600)  # left behind
    # 5: a link to a file outside, in a folder made read-only
    try:
        os.mkdir("ro")
        os.symlink(os.path.join(WORLD["HOSTILE_OUTSIDE"], "keep.txt"), os.path.join("ro", "link"))
        os.chmod("ro", 0o500)
    except OSError:
        pass
    # 7: folders nested deeper than Python's stack
    here = os.getcwd()
    try:
        for _ in range(WORLD["NESTED"] if nest else 0):
            os.mkdir("d")
            os.chdir("d")
    except OSError:
        pass
    os.chdir(here)
    # 6: its own folder, by a relative path
    with open("scratch.txt", "w") as file:
        file.write("its own")
    with open("scratch.txt") as file:
        assert file.read() == "its own"
    print("attacked")
'''

PROGRAM = 'import attack\nattack.run()\nraise AssertionError("hostile")\n'


@dataclass
class Attacked:
    """One path's run of the attacking program, as the world outside saw it right after: whether the program's
    outcome says it ran to its end, and what changed outside (each a list of what was seen; empty, one hopes)."""

    outcome_ok: bool
    detail: str
    seen: dict[str, list[str]] = field(default_factory=dict)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    yield from make_world(tmp_path_factory.mktemp("room-world"))


#: Paths that run the program many times, through the machinery of the exec oracle and of a command (tested on
#: their own paths): their runs nest no folders, which a busy disk takes milliseconds a folder to remove.
MANY_RUNS = {"slice", "isolate", "compare"}


def _folder(world: World, where: Path, path: str) -> Path:
    """A folder holding the attack module (beside the program that imports it)."""
    where.mkdir(parents=True, exist_ok=True)
    (where / "attack.py").write_text(ATTACK.format(world={**world.env, "NESTED": 0 if path in MANY_RUNS else NESTED}))
    (where / "prog.py").write_text(PROGRAM)
    return where


def _exec(folder: Path) -> tuple[bool, str]:
    oracle = ExecOracle(Target.parse("AssertionError:hostile"), timeout=60, search_path=str(folder))
    try:
        verdict = oracle.judge(PROGRAM)
    finally:
        oracle.close()
    return verdict.outcome is Outcome.FAIL, verdict.run.describe()


def _command(commands: list[str], folder: Path, want: Outcome, **keywords: object) -> tuple[bool, str]:
    oracle = CommandOracle(commands, "prog.py", timeout=60, **keywords)  # type: ignore[arg-type]
    try:
        # the candidate imports attack.py: a command runs it with the program's folder on PYTHONPATH
        os.environ["PYTHONPATH"] = str(folder)
        verdict = oracle.judge(PROGRAM)
    finally:
        os.environ.pop("PYTHONPATH")
        oracle.close()
    return verdict.outcome is want, verdict.run.describe()


def _run(folder: Path) -> tuple[bool, str]:
    return _command([f"{sys.executable} {{file}}"], folder, Outcome.FAIL, criteria=Criteria(stderr="AssertionError: hostile"))


def _test(folder: Path) -> tuple[bool, str]:
    script = folder / "interesting.sh"
    script.write_text(f'#!/bin/sh\n"{sys.executable}" "$1" > log.txt 2>&1\ngrep -q "AssertionError: hostile" log.txt\n')
    script.chmod(0o755)
    return _command([str(script)], folder, Outcome.FAIL, script=True)


def _test_forked(folder: Path) -> tuple[bool, str]:
    # a Python script, not executable: calibrated as a new interpreter and in a child forked ahead, then
    # each test forked (both run the candidate in the script's own process)
    script = folder / "interesting.py"
    script.write_text(
        f"import sys\nsys.path.insert(0, {str(folder)!r})\nsource = open(sys.argv[1]).read()\ntry:\n"
        "    exec(compile(source, sys.argv[1], 'exec'), {'__name__': '__main__'})\n"
        "except AssertionError as error:\n    sys.exit(0 if str(error) == 'hostile' else 1)\nsys.exit(1)\n"
    )
    oracle = CommandOracle([str(script)], "prog.py", timeout=60, script=True)
    try:
        oracle.calibrate(PROGRAM)
        forked = oracle._forked is not None
        verdict = oracle.judge(PROGRAM)
    finally:
        oracle.close()
    return verdict.outcome is Outcome.FAIL and forked, f"{verdict.run.describe()}, forked: {forked}"


def _differential(folder: Path) -> tuple[bool, str]:
    # the same output and status as a program that only says it attacked: no difference, when it ran to its end
    said = f"{sys.executable} -c \"print('attacked'); raise AssertionError('hostile')\""
    return _command([f"{sys.executable} {{file}}", said], folder, Outcome.PASS)


def _python_312(folder: Path) -> tuple[bool, str]:
    from astreduce.oracles.worker import WorkerExecOracle

    temporary = folder / "tmp"  # where the worker makes its children's folders: it must be empty afterwards
    temporary.mkdir()
    saved = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = str(temporary)  # the worker, started by the first test, takes it
    oracle = WorkerExecOracle(Target.parse("AssertionError:hostile"), timeout=60, search_path=str(folder), python=str(PYTHON_312))
    try:
        verdict = oracle.judge(PROGRAM)
    finally:
        oracle.close()
        if saved is None:
            os.environ.pop("TMPDIR")
        else:
            os.environ["TMPDIR"] = saved
    left = list(temporary.iterdir())
    return verdict.outcome is Outcome.FAIL and not left, f"{verdict.run.describe()}; left: {left}"


def _tree(folder: Path) -> tuple[bool, str]:
    # calibrated plain (an interpreter of its own) and forked (a child of the fork server's room): both run it
    tree = {"prog.py": PROGRAM, "attack.py": (folder / "attack.py").read_text()}
    oracle = TreeOracle(OracleOptions(expect="AssertionError:hostile"), entry="prog.py")
    try:
        oracle.calibrate(tree)
        verdict = oracle.judge(tree)
    finally:
        oracle.close()
    return verdict.outcome is Outcome.FAIL, verdict.run.describe()


def _batch(folder: Path) -> tuple[bool, str]:
    from astreduce.batch import run_input
    from astreduce.reduce.single import ReduceConfig

    run = run_input(str(folder / "prog.py"), ReduceConfig(options=OracleOptions(expect="AssertionError:hostile")))
    return "hostile" in str(run.signature), str(run)


def _slice(folder: Path) -> tuple[bool, str]:
    from astreduce.slicing.search import slice_run

    result = slice_run(folder / "prog.py", OracleOptions(expect="AssertionError:hostile", timeout=60))
    return bool(result.tests), f"{result.tests} tests"


def _isolate(folder: Path) -> tuple[bool, str]:
    from astreduce.isolate import isolate_paths

    (folder / "old.py").write_text("import attack\nattack.run()\n")
    result = isolate_paths(folder / "old.py", folder / "prog.py", OracleOptions(expect="AssertionError:hostile"), "lines")
    return result.verified, f"{result.tests} tests"


def _compare(folder: Path) -> tuple[bool, str]:
    done = CliRunner().invoke(
        main, ["compare", str(folder / "prog.py"), "--expect", "AssertionError:hostile", "--strategy", "lines", "-q"],
        catch_exceptions=False,
    )
    return done.exit_code == 0, done.output


def _predicate(folder: Path) -> tuple[bool, str]:
    source = (folder / "attack.py").read_text()

    def interesting(text: str) -> bool:
        namespace: dict[str, object] = {}
        exec(compile(source, "attack.py", "exec"), namespace)
        namespace["run"]()  # type: ignore[operator]
        return "hostile" in text

    oracle = PredicateOracle(interesting, timeout=60)
    verdict = oracle.judge(PROGRAM)
    return verdict.outcome is Outcome.FAIL, verdict.run.describe()


def _pytest(folder: Path) -> tuple[bool, str]:

    project_folder = folder / "project"
    project_folder.mkdir()
    shutil.copy(folder / "attack.py", project_folder / "attack.py")
    # the conftest attacks while pytest configures (in the warm pytest, before any test); the test attacks too
    (project_folder / "conftest.py").write_text(
        "import attack\n\n\ndef pytest_addoption(parser):\n    attack.run(nest=False)\n\n\n"
        "def pytest_configure(config):\n    attack.run(nest=False)\n"
    )
    (project_folder / "test_it.py").write_text('import attack\n\n\ndef test_it():\n    attack.run()\n    raise AssertionError("hostile")\n')
    verdict, warm = calibrate_warm(project_folder)
    return verdict.outcome is Outcome.FAIL and warm, f"{verdict.run.describe()}, warm: {warm}"


def calibrate_warm(folder: Path) -> tuple[Verdict, bool]:
    """The pytest oracle calibrated on ``test_it.py::test_it`` of the project in ``folder``: its verdict, and
    whether it ended warm (a warm pytest configured and served the test)."""
    from astreduce.pytest_node import PytestOracle, read_project

    project = read_project(folder, "test_it.py::test_it", python=sys.executable)
    oracle = PytestOracle(project, timeout=120)
    try:
        return oracle.calibrate(project.tree), oracle.pool is not None
    finally:
        oracle.close()


#: Every path a candidate runs on, and how to make it run the attacking program there.
PATHS: dict[str, Callable[[Path], tuple[bool, str]]] = {
    "exec": _exec, "run": _run, "test": _test, "test-forked": _test_forked, "differential": _differential, "python-3.12": _python_312,
    "tree": _tree, "batch": _batch, "slice": _slice, "isolate": _isolate, "compare": _compare,
    "predicate": _predicate, "pytest": _pytest,
}
_ATTACKED: dict[str, Attacked] = {}


def attacked(path: str, world: World, tmp_path_factory: pytest.TempPathFactory) -> Attacked:
    """The path's run of the attacking program and what the world saw, made once in the whole test run (by the
    first xdist worker to ask; the others read what it saw, in a folder they share)."""
    if path == "python-3.12" and not PYTHON_312.exists():
        pytest.skip("no Python 3.12 here")
    if path in _ATTACKED:
        return _ATTACKED[path]
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    shared = tmp_path_factory.getbasetemp().parent / f"room-{run_id}" if run_id else tmp_path_factory.mktemp("room")
    shared.mkdir(exist_ok=True)
    with open(shared / f"{path}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        saved = shared / f"{path}.json"
        if saved.exists():
            _ATTACKED[path] = Attacked(**json.loads(saved.read_text()))
        else:
            _ATTACKED[path] = _attack(path, world, tmp_path_factory)
            saved.write_text(json.dumps(dataclasses.asdict(_ATTACKED[path])))
    return _ATTACKED[path]


def _attack(path: str, world: World, tmp_path_factory: pytest.TempPathFactory) -> Attacked:
    before = world.snapshot()
    heard = {name: len(listener.received) for name, listener in world.listeners.items()}
    folder = _folder(world, tmp_path_factory.mktemp(f"attack-{path}"), path)
    rooms = _room_folders()
    ok, detail = PATHS[path](folder)
    time.sleep(0.5)  # a datagram in flight, a listener's thread not woken yet
    return Attacked(ok, detail, {
        "victim killed": [] if world.victim.poll() is None else [f"exit {world.victim.returncode}"],
        "victim signalled": world.victim_log.read_text().split() if world.victim_log.exists() else [],
        "victim moved or changed": [] if world.victims() == world.victim_state else [repr(world.victims())],
        "received outside": [f"{name}: {got}" for name, listener in world.listeners.items() for got in listener.received[heard[name]:]],
        "segment changed": [] if world.segment_bytes() == SEGMENT else [repr(world.segment_bytes())],
        "IPC left outside": left_ipc(),
        "files outside changed": [] if world.snapshot() == before else [repr(world.snapshot())],
        "left behind": sorted(p for p in _room_folders() - rooms if _deep(p)),
    })


def _room_folders() -> set[str]:
    """The test folders now in this process's room folder (another xdist worker's are its own business)."""
    from astreduce.run.sandbox import room_folder

    room = room_folder()
    return {os.path.join(room, name) for name in os.listdir(room)}


def _deep(path: str) -> bool:
    """A folder an attack left (one holding the nested ``d`` folders, or the read-only ``ro``)."""
    return os.path.isdir(os.path.join(path, "d")) or os.path.isdir(os.path.join(path, "ro"))


ALL = list(PATHS)


def _seen(found: Attacked, *what: str) -> dict[str, list[str]]:
    """What the world saw of these kinds (nothing, when the room held)."""
    return {kind: found.seen[kind] for kind in what if found.seen[kind]}


@pytest.mark.parametrize("path", ALL)
def test_1_no_process_outside_is_killed_or_moved_into_a_cgroup(path: str, world: World, tmp_path_factory: pytest.TempPathFactory) -> None:
    found = attacked(path, world, tmp_path_factory)
    assert _seen(found, "victim killed", "victim signalled", "victim moved or changed") == {}


@pytest.mark.parametrize("path", ALL)
def test_2_no_network_and_no_ipc_reach_outside_the_room(path: str, world: World, tmp_path_factory: pytest.TempPathFactory) -> None:
    found = attacked(path, world, tmp_path_factory)
    assert _seen(found, "received outside", "segment changed", "IPC left outside") == {}


@pytest.mark.parametrize("path", ALL)
def test_5_cleanup_follows_no_link_a_candidate_left(path: str, world: World, tmp_path_factory: pytest.TempPathFactory) -> None:
    found = attacked(path, world, tmp_path_factory)  # run as root here (the cleanup needs no chmod): nobody's test follows
    assert _seen(found, "files outside changed") == {}


@pytest.mark.parametrize("path", ALL)
def test_6_a_candidate_writes_in_its_own_folder_by_a_relative_path(path: str, world: World, tmp_path_factory: pytest.TempPathFactory) -> None:
    found = attacked(path, world, tmp_path_factory)
    assert found.outcome_ok, found.detail  # the program raises the target only once its relative write worked


@pytest.mark.parametrize("path", ALL)
def test_7_folders_deeper_than_the_stack_are_removed(path: str, world: World, tmp_path_factory: pytest.TempPathFactory) -> None:
    found = attacked(path, world, tmp_path_factory)
    assert _seen(found, "left behind") == {}


# --- 3 and 4: the user's code that ran outside any room --------------------------------------------------

CANARY_IMPORT = '''\
import os, socket

try:
    with open({canary!r}, "w") as file:
        file.write("written outside the room")
except OSError:
    pass
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=1).sendall(b"from outside the room")
except OSError:
    pass
'''


def test_3_a_conftest_runs_in_the_room_while_the_warm_pytest_configures(world: World, tmp_path: Path) -> None:

    canary = world.outside / "conftest-canary.txt"
    attack = CANARY_IMPORT.format(canary=str(canary), port=world.env["HOSTILE_PORT"])
    (tmp_path / "conftest.py").write_text(
        f"def pytest_addoption(parser):\n{textwrap.indent(attack, '    ')}\n\n"
        f"def pytest_configure(config):\n{textwrap.indent(attack, '    ')}\n"
    )
    (tmp_path / "test_it.py").write_text('def test_it():\n    raise AssertionError("hostile")\n')
    before = world.snapshot()
    verdict, warm = calibrate_warm(tmp_path)
    assert verdict.outcome is Outcome.FAIL and warm  # the warm pytest configured (its conftest denied) and served
    assert not canary.exists()
    world.check(before)


@pytest.mark.parametrize("path", ["exec", "tree"])
def test_4_the_fork_servers_preloaded_imports_run_in_the_room(
    path: str, world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    from astreduce.run import forkserver

    library = tmp_path / "library"
    library.mkdir()
    canary = world.outside / f"preload-canary-{path}.txt"
    (library / f"preloaded_{path}.py").write_text(CANARY_IMPORT.format(canary=str(canary), port=world.env["HOSTILE_PORT"]))
    monkeypatch.setattr(sys, "path", [*sys.path, str(library)])  # as PYTHONPATH puts it: an import found outside the input's folder
    monkeypatch.setenv("PYTHONPATH", str(library))  # for a tree's plain runs, in interpreters of their own
    monkeypatch.setattr(forkserver, "_preloads", {})
    forkserver.forget_server()  # a server started after, with that path
    before = world.snapshot()
    program = f"import preloaded_{path}\nraise AssertionError('hostile')\n"
    try:
        if path == "exec":
            oracle = ExecOracle(timeout=60, search_path=str(tmp_path / "program"))
            verdict = oracle.calibrate(program)
            oracle.close()
        else:
            tree_oracle = TreeOracle(OracleOptions(expect="AssertionError:hostile"), entry="main.py")
            verdict = tree_oracle.calibrate({"main.py": program})
            tree_oracle.judge({"main.py": program})
            tree_oracle.close()
    finally:
        forkserver.forget_server()
    assert verdict.outcome is Outcome.FAIL
    assert not canary.exists()
    world.check(before)


# --- 5 as nobody: a cleanup that could follow the link would change the file -------------------------------

NOBODY = '''\
import sys
from astreduce.oracles import Target
from astreduce.oracles.command import CommandOracle, Criteria
from astreduce.oracles.execution import ExecOracle
from astreduce.oracles.predicate import PredicateOracle

program = open(sys.argv[1]).read()
source = program.rsplit("raise", 1)[0]


def interesting(text):
    exec(source, {})
    return True


oracles = [
    ExecOracle(Target.parse("AssertionError:hostile"), timeout=60),
    CommandOracle([sys.executable + " {file}"], "prog.py", criteria=Criteria(stderr="AssertionError: hostile"), timeout=60),
    PredicateOracle(interesting, timeout=60),
]
for oracle in oracles:
    print(oracle.judge(program).outcome.name)
    oracle.close()
'''

LINK_OUT = '''\
import os
os.mkdir("ro")
os.symlink({target!r}, os.path.join("ro", "link"))
os.symlink({folder!r}, os.path.join("ro", "folder"))
os.chmod("ro", 0o500)
raise AssertionError("hostile")
'''


def _as_nobody() -> list[str]:
    """How to run a Python script as ``nobody`` with this checkout's astreduce (the system's Python: this
    one may be out of ``nobody``'s reach), or skip."""
    system = Path("/usr/bin/python3")
    if not IS_ROOT or shutil.which("setpriv") is None or not system.exists():
        pytest.skip("needs root, setpriv and /usr/bin/python3 to run as nobody")
    found = subprocess.run(
        ["setpriv", "--reuid", "nobody", "--regid", "nogroup", "--clear-groups", str(system), "-c", "import sys; print(sys.version_info >= (3, 10))"],
        capture_output=True, text=True, check=False,
    )
    if found.stdout.strip() != "True":
        pytest.skip("nobody's /usr/bin/python3 is older than 3.10")
    return ["setpriv", "--reuid", "nobody", "--regid", "nogroup", "--clear-groups", "env", f"PYTHONPATH={Path(__file__).resolve().parents[1]}", str(system)]


def test_5_run_as_nobody_the_cleanup_changes_no_file_through_a_link() -> None:
    command = _as_nobody()
    package = Path(astreduce.__file__).resolve().parent
    if any(not (folder.stat().st_mode & 0o005) for folder in [package, *package.parents]):
        pytest.skip("nobody cannot read astreduce here (a checkout in a folder of mode 0700)")
    place = Path(tempfile.mkdtemp(prefix="room-nobody-"))
    try:
        outside = place / "outside"
        outside.mkdir()
        (outside / "file.txt").write_text("nobody's file\n")
        (place / "prog.py").write_text(LINK_OUT.format(target=str(outside / "file.txt"), folder=str(outside)))
        (place / "run.py").write_text(NOBODY)
        (place / "tmp").mkdir()
        for path in (place, outside, outside / "file.txt", place / "prog.py", place / "run.py", place / "tmp"):
            os.chown(path, 65534, 65534)
        (outside / "file.txt").chmod(0o644)
        outside.chmod(0o755)
        done = subprocess.run(
            [*command, str(place / "run.py"), str(place / "prog.py")], cwd=place, capture_output=True, text=True, timeout=300,
            env={"PATH": os.environ["PATH"], "TMPDIR": str(place / "tmp")}, check=False,
        )
        assert done.stdout.split() == ["FAIL", "FAIL", "FAIL"], done.stderr
        assert "Traceback" not in done.stderr and "could not remove" not in done.stderr, done.stderr
        assert stat.S_IMODE((outside / "file.txt").stat().st_mode) == 0o644
        assert stat.S_IMODE(outside.stat().st_mode) == 0o755
        assert list((place / "tmp").iterdir()) == []  # the read-only folders went, and the rooms
    finally:
        shutil.rmtree(place, ignore_errors=True)


# --- 6: a C-Reduce-style script writes its log in its folder ------------------------------------------------

CREDUCE_STYLE = '#!/bin/sh\n"{python}" "$1" > log.txt 2>&1\ngrep -q "AssertionError: My Test" log.txt\n'


def test_6_a_c_reduce_style_script_that_writes_its_log_reduces_as_unconfined(tmp_path: Path) -> None:
    (tmp_path / "prog.py").write_text("import os\nvalue = 3\nother = [1, 2]\nassert value == 4, 'My Test'\n")
    script = tmp_path / "interesting.sh"
    script.write_text(CREDUCE_STYLE.format(python=sys.executable))
    script.chmod(0o755)
    outputs = []
    for extra in ([], ["--no-confine"]):
        out = tmp_path / f"out{len(outputs)}.py"
        done = subprocess.run(
            [sys.executable, "-m", "astreduce", "reduce", "prog.py", "--test", str(script), "-o", str(out), "-q", "--no-format", *extra],
            cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
        )
        assert done.returncode == 0, done.stderr
        outputs.append(out.read_text())
    assert outputs[0] == outputs[1] and "My Test" in outputs[0]
    assert not (tmp_path / "log.txt").exists()  # the log went to each test's folder


# --- 7: 30,000 nested folders, in a test and in a folder another astreduce left ---------------------------------

DEEP = "import os\nfor _ in range({depth}):\n    os.mkdir('d')\n    os.chdir('d')\nraise AssertionError('deep')\n"


@pytest.mark.parametrize("depth", DEPTHS)
def test_7_thousands_of_nested_folders_go_without_a_traceback(depth: int, tmp_path: Path) -> None:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    script = (
        "from astreduce.oracles import Target\n"
        "from astreduce.oracles.execution import ExecOracle\n"
        f"oracle = ExecOracle(Target.parse('AssertionError:deep'), timeout=120)\n"
        f"print(oracle.judge({DEEP.format(depth=depth)!r}).outcome.name)\n"
        "oracle.close()\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "TMPDIR": str(temporary)}, check=False)
    assert done.stdout.strip() == "FAIL" and done.stderr == "", done.stderr
    assert list(temporary.iterdir()) == []  # the folder and its claim


@pytest.mark.parametrize("depth", DEPTHS)
def test_7_a_deep_folder_another_astreduce_left_goes_with_the_next_sweep(depth: int, tmp_path: Path) -> None:
    # a killed astreduce's claim: its lock file (nobody holds it) and its room, with thousands of nested folders
    token = "astreduce-0123456789ab"
    (tmp_path / f"{token}.lock").write_text("")
    here = os.getcwd()
    os.makedirs(tmp_path / token / f"{token}-left")
    os.chdir(tmp_path / token / f"{token}-left")
    try:
        for _ in range(depth):
            os.mkdir("d")
            os.chdir("d")
    finally:
        os.chdir(here)
    done = subprocess.run(
        [sys.executable, "-c", "from astreduce.run.sandbox import make_workdir; make_workdir()"],
        env={**os.environ, "TMPDIR": str(tmp_path)}, capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []


# --- 8 to 11: outputs and inputs, checked before the first test ---------------------------------------------

SMALL = "x = 1\nraise ValueError('boom')\n"


def _cli(*args: str, cwd: Path) -> tuple[int, str]:
    """``astreduce ARGS`` in this process: its exit status and its standard error."""
    previous = os.getcwd()
    os.chdir(cwd)
    try:
        done = CliRunner().invoke(main, list(args))
    finally:
        os.chdir(previous)
    return done.exit_code, done.stderr


def _one_line(code: int, stderr: str, *words: str) -> None:
    assert code == 2, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("astreduce: ") and "Traceback" not in stderr, stderr
    for word in words:
        assert word in lines[0], stderr


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    """A program, a folder of two, an old and a new version, a pytest project, a FIFO and a link to /proc/self/fd/1."""
    (tmp_path / "p.py").write_text(SMALL)
    (tmp_path / "old.py").write_text("x = 1\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "main.py").write_text("import helper\nhelper.f()\n")
    (tree / "helper.py").write_text("def f():\n    raise ValueError('boom')\n")
    (tmp_path / "test_it.py").write_text("def test_it():\n    raise ValueError('boom')\n")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "stdout").symlink_to("/proc/self/fd/1")
    return tmp_path


#: Every command and the outputs it writes: the command line, with OUT where an output goes.
OUTPUTS = {
    "reduce -o": ["reduce", "p.py", "--expect", "ValueError", "-o", "OUT"],
    "reduce --report": ["reduce", "p.py", "--expect", "ValueError", "--report", "OUT"],
    "reduce DIR --report": ["reduce", "tree", "--entry", "main.py", "--expect", "ValueError", "-o", "treeout", "--report", "OUT"],
    "batch --report": ["batch", "p.py", "-o", "batchout", "--expect", "ValueError", "--report", "OUT"],
    "compare -o": ["compare", "p.py", "--expect", "ValueError", "-o", "OUT"],
    "compare --csv": ["compare", "p.py", "--expect", "ValueError", "--csv", "OUT"],
    "compare --report": ["compare", "p.py", "--expect", "ValueError", "--report", "OUT"],
    "compare --plot": ["compare", "p.py", "--expect", "ValueError", "--plot", "OUT"],
    "isolate -o": ["isolate", "old.py", "p.py", "--expect", "ValueError", "-o", "OUT"],
    "isolate --report": ["isolate", "old.py", "p.py", "--expect", "ValueError", "--report", "OUT"],
    "slice -o": ["slice", "p.py", "--expect", "ValueError", "-o", "OUT"],
    "slice --report": ["slice", "p.py", "--expect", "ValueError", "--report", "OUT"],
    "pytest --report": ["pytest", "test_it.py::test_it", "--root", ".", "-o", "pyout", "--report", "OUT"],
}
#: Outputs that are no regular file: each is refused, and left as it was.
SPECIAL = {"/dev/null": "character device", "fifo": "FIFO", "stdout": "/proc", "/proc/self/x.py": "/proc", "/proc/version": "/proc"}


@pytest.mark.parametrize("special", sorted(SPECIAL))
@pytest.mark.parametrize("command", sorted(OUTPUTS))
def test_8_and_9_an_output_that_is_no_regular_file_is_refused_before_the_first_test(command: str, special: str, inputs: Path) -> None:
    if command.endswith("--plot"):  # a plot's name ends in .png first: a FIFO of that name, a new name on /proc
        if special not in ("fifo", "/proc/self/x.py"):
            pytest.skip("a plot's name must end in .png, .svg or .pdf")
        special = {"fifo": "fifo.png", "/proc/self/x.py": "/proc/self/x.png"}[special]
        if special == "fifo.png":
            os.mkfifo(inputs / special)
    args = [special if word == "OUT" else word for word in OUTPUTS[command]]
    code, stderr = _cli(*args, cwd=inputs)
    _one_line(code, stderr, special)
    assert stat.S_ISFIFO((inputs / "fifo").stat().st_mode) and stat.S_ISCHR(os.stat("/dev/null").st_mode)
    assert not (inputs / "out.py").exists() and not (inputs / "treeout").exists()  # no reduction ran


#: Commands and their inputs: the command line, with IN where an input goes.
INPUTS = {
    "reduce": ["reduce", "IN", "--expect", "ValueError", "-o", "out.py"],
    "batch": ["batch", "IN", "-o", "batchout", "--expect", "ValueError"],
    "compare": ["compare", "IN", "--expect", "ValueError"],
    "isolate": ["isolate", "old.py", "IN", "--expect", "ValueError"],
    "slice": ["slice", "IN", "--expect", "ValueError"],
}


@pytest.mark.parametrize("special", ["fifo", "/dev/zero", "/proc/self/environ", "big.py"])
@pytest.mark.parametrize("command", sorted(INPUTS))
def test_10_an_input_that_is_no_regular_file_or_too_big_is_refused(command: str, special: str, inputs: Path) -> None:
    (inputs / "big.py").write_text("x = 1\n" * 2000)
    args = [special if word == "IN" else word for word in INPUTS[command]]
    if special == "big.py":
        args.insert(1, "--max-input-bytes=1000")
    code, stderr = _cli(*args, cwd=inputs)
    said = {"fifo": "a FIFO", "/dev/zero": "character device", "/proc/self/environ": "/proc", "big.py": "--max-input-bytes"}
    _one_line(code, stderr, said[special])


def test_10_a_raised_limit_reads_a_big_input(inputs: Path) -> None:
    (inputs / "big.py").write_text("x = 1\n" * 2000 + "raise ValueError('boom')\n")
    code, stderr = _cli("reduce", "big.py", "--expect", "ValueError", "-o", "out.py", "-q", "--max-input-bytes", "100000", "--no-format", cwd=inputs)
    assert code == 0, stderr


@pytest.mark.parametrize("command", ["reduce", "batch", "isolate"])
@pytest.mark.parametrize("link", ["file outside", "folder outside", "file inside", "folder inside"])
def test_11_a_link_in_an_input_folder_is_refused_and_followed_only_inside(command: str, link: str, inputs: Path) -> None:
    tree = inputs / "tree"
    name = tree / ("pw.py" if "file" in link else "sub")
    target = {"file outside": "/etc/passwd", "folder outside": "/etc", "file inside": "helper.py", "folder inside": "."}[link]
    os.symlink(target, name)
    old = inputs / "oldtree"
    shutil.copytree(tree, old, symlinks=False, ignore=shutil.ignore_patterns("pw.py", "sub"))
    (old / "helper.py").write_text("def f():\n    pass\n")
    args = {
        "reduce": ["reduce", "tree", "--entry", "main.py", "--expect", "ValueError", "-o", "out", "-q", "--no-format"],
        "batch": ["batch", "tree", "-o", "batchout", "--expect", "ValueError", "-q", "--no-format"],
        "isolate": ["isolate", "oldtree", "tree", "--entry", "main.py", "--expect", "ValueError", "-q"],
    }[command]
    shown = f"tree/{name.name}"  # under the name the command line gave the folder
    code, stderr = _cli(*args, cwd=inputs)
    _one_line(code, stderr, shown, "symbolic link")
    code, stderr = _cli(*args, "--follow-symlinks", cwd=inputs)
    if "outside" in link:
        _one_line(code, stderr, shown, "outside")
    else:
        assert code in (0, 1), stderr  # read (the loop of "folder inside" once), then reduced or judged
        assert "symbolic link" not in stderr


# --- 1, after the command: whatever the command, no cgroup is left and the victim is free -------------------

MOVER = '''\
import glob
for procs in glob.glob("/sys/fs/cgroup/pids/astreduce-*/cgroup.procs"):
    try:
        with open(procs, "w") as file:
            file.write("{victim}")
    except OSError:
        pass
value = 3
raise AssertionError("hostile")
'''

PREDICATE_API = '''\
import sys
from astreduce import reduce_source


def interesting(text):
    exec(text.rsplit("raise", 1)[0], {})
    return "hostile" in text


print(reduce_source(open(sys.argv[1]).read(), interesting=interesting).text)
'''

#: Each command, as ``astreduce`` arguments (or a script of the API), on the program that moves the victim.
COMMANDS = {
    "reduce": ["reduce", "prog.py", "--expect", "AssertionError:hostile", "-o", "out.py", "--max-tests", "3"],
    "tree": ["reduce", "tree", "--entry", "prog.py", "--expect", "AssertionError:hostile", "-o", "treeout", "--max-tests", "3"],
    "batch": ["batch", "prog.py", "-o", "batchout", "--expect", "AssertionError:hostile", "--max-tests", "3"],
    "isolate": ["isolate", "old.py", "prog.py", "--expect", "AssertionError:hostile"],
    "predicate": [],
    "pytest": ["pytest", "test_it.py::test_it", "--root", "project", "-o", "pyout", "--max-tests", "2"],
}


@pytest.mark.skipif(not IS_ROOT, reason="cgroups are root's")
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_1_after_any_command_no_cgroup_is_left_and_no_process_outside_is_held(command: str, world: World, tmp_path: Path) -> None:
    program = MOVER.format(victim=world.victim.pid)
    (tmp_path / "prog.py").write_text(program)
    (tmp_path / "old.py").write_text(program.replace('raise AssertionError("hostile")', ""))
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "prog.py").write_text(program)
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "test_it.py").write_text("def test_it():\n" + textwrap.indent(program, "    "))
    (tmp_path / "api.py").write_text(PREDICATE_API)
    args = [sys.executable, "-m", "astreduce", *COMMANDS[command], "-q"] if command != "predicate" else [sys.executable, "api.py", "prog.py"]
    done, tree = run_watched(args, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    assert Path(f"/proc/{world.victim.pid}/cgroup").read_text() == world.victim_state[0] and world.victim.poll() is None
    assert cgroups_of_gone_processes(tree) == []  # the command's own, among them


# --- the value tracer runs in the room, with the same allowances -------------------------------------------------


def test_the_value_tracer_runs_confined_with_the_oracles_allowances(world: World, tmp_path: Path) -> None:
    from astreduce.run.sandbox import Limits
    from astreduce.run.trace import Tracer
    from astreduce.source.tree import parse

    allowed = tmp_path / "allowed"
    allowed.mkdir()
    canary = world.outside / "tracer-canary.txt"
    text = (
        f"import socket\nfor path in ({str(canary)!r}, {str(allowed / 'written.txt')!r}):\n"
        "    try:\n        open(path, 'w').write('x')\n    except OSError:\n        pass\n"
        f"try:\n    socket.create_connection(('127.0.0.1', {world.env['HOSTILE_PORT']}), timeout=1).sendall(b'tracer')\n"
        "except OSError:\n    pass\nvalue = 1 + 1\n"
    )
    before = world.snapshot()
    sums = [node.id for node in parse(text).nodes if node.kind == "BinOp"]
    values, _ = Tracer(limits=Limits(writable=(str(allowed),))).record(text, sums)
    assert list(values.values()) == ["2"]  # it ran to its end, and recorded 1 + 1
    assert (allowed / "written.txt").exists() and not canary.exists()
    world.check(before)


# --- 7: a folder that will not go is named in one line at the end ----------------------------------------------


def test_7_a_folder_that_cannot_be_removed_is_named_in_one_line_at_exit(tmp_path: Path) -> None:
    chattr = shutil.which("chattr")
    if not IS_ROOT or chattr is None:
        pytest.skip("needs root and chattr to make a file no one may remove")
    script = (
        "import os, subprocess\n"
        "from astreduce.run.sandbox import make_workdir, remove_workdir\n"
        "folder = make_workdir()\n"
        "open(os.path.join(folder, 'stuck'), 'w').close()\n"
        f"subprocess.run([{chattr!r}, '+i', os.path.join(folder, 'stuck')], check=True)\n"
        "print(folder, remove_workdir(folder), flush=True)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "TMPDIR": str(tmp_path)}, check=False)
    folder, gone = done.stdout.split()
    try:
        assert done.returncode == 0 and gone == "False"
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("astreduce: could not remove") and folder in lines[0], done.stderr
        assert "Traceback" not in done.stderr
        assert (tmp_path / f"{Path(folder).parent.name}.lock").exists()  # the claim stays, for the next one to try
    finally:
        subprocess.run([chattr, "-i", os.path.join(folder, "stuck")], check=False)
        shutil.rmtree(folder, ignore_errors=True)


def test_allow_network_gives_the_hosts_network_back_and_keeps_the_rest_closed(world: World) -> None:
    from astreduce.run.sandbox import Limits

    before = world.snapshot()
    program = (
        "import os, socket\n"
        f"socket.create_connection(('127.0.0.1', {world.env['HOSTILE_PORT']}), timeout=2).sendall(b'allowed tcp')\n"
        f"socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'allowed udp', ('127.0.0.1', {world.env['HOSTILE_UDP_PORT']}))\n"
        f"unix = socket.socket(socket.AF_UNIX)\nunix.connect({world.env['HOSTILE_UNIX']!r})\nunix.sendall(b'allowed unix')\n"
        f"try:\n    open({str(world.outside / 'keep.txt')!r}, 'w')\nexcept OSError:\n    raise AssertionError('hostile')\n"
    )
    oracle = ExecOracle(Target.parse("AssertionError:hostile"), timeout=60, limits=Limits(network=True))
    try:
        verdict = oracle.judge(program)
    finally:
        oracle.close()
    assert verdict.outcome is Outcome.FAIL, verdict  # connected three ways, and was still denied the file
    time.sleep(0.5)
    for name in ("tcp", "udp", "unix"):
        assert world.listeners[name].received, name
        world.listeners[name].received.clear()
    world.check(before)
