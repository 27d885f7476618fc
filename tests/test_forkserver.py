"""The fork server: the exec oracle's children are forked by a small process, not by astreduce itself."""

from __future__ import annotations

import ast
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from astreduce.run import forkserver
from astreduce.oracles.execution import ExecOracle
from astreduce.run.forkserver import forget_server, running_server


def _parent_of_a_test(oracle: ExecOracle) -> int:
    run = oracle.run("import os\nraise ValueError(os.getppid())\n")
    assert run.ending == "exception", run
    return int(run.message)


def _parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as stat:
        return int(stat.read().rpartition(")")[2].split()[1])


def test_a_test_is_forked_by_a_room_of_the_server_not_by_astreduce() -> None:
    oracle = ExecOracle(timeout=30)
    try:
        parent = _parent_of_a_test(oracle)
        assert parent != os.getpid()
        server = running_server()
        assert server is not None and parent in server.rooms()
        assert _parent_of(parent) == server.pid  # the room is the server's child,
        assert _parent_of(server.pid) == os.getpid()  # and the server astreduce's
    finally:
        oracle.close()


def test_a_crash_is_told_by_its_signal_through_the_server() -> None:
    oracle = ExecOracle(timeout=30)
    try:
        run = oracle.run("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n")
        assert run.ending == "crash"
        assert "SIGSEGV" in run.detail
    finally:
        oracle.close()


def test_a_dead_server_is_replaced_and_the_tests_go_on() -> None:
    oracle = ExecOracle(timeout=30)
    try:
        first = _parent_of(_parent_of_a_test(oracle))  # the server, parent of the test's room
        oracle.close()  # its spare, forked by the server's room, goes first
        os.kill(first, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and os.waitpid(first, os.WNOHANG)[0] == 0:
            time.sleep(0.01)
        second = _parent_of(_parent_of_a_test(oracle))
        assert second != first
        assert _parent_of(_parent_of_a_test(oracle)) == second  # and the new server stays
    finally:
        oracle.close()


def test_a_killed_astreduce_leaves_no_test_running_and_no_folder(tmp_path: Path) -> None:
    # the spare waiting for the next test has confined itself and cannot remove its own folder; the
    # server, told of astreduce's death, kills what runs and waits, and removes both folders
    script = tmp_path / "owner.py"
    script.write_text(
        "import time\n"
        "from astreduce.oracles import Target\n"
        "from astreduce.oracles.execution import ExecOracle\n"
        "oracle = ExecOracle(Target.parse('AssertionError:My Test'), timeout=120)\n"
        "pending = oracle.start('import os, time\\nprint(os.getpid(), flush=True)\\ntime.sleep(100)\\n')\n"
        "print(pending.job.workdir, oracle._spare.workdir, flush=True)\n"
        "time.sleep(100)\n"
    )
    with subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True) as owner:
        assert owner.stdout is not None
        running, waiting = (Path(p) for p in owner.stdout.readline().split())
        output = running / "output.txt"
        deadline = time.monotonic() + 30
        while not (output.exists() and output.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.05)  # until the candidate has started
        sleeper = int(output.read_text())
        owner.kill()
    deadline = time.monotonic() + 30  # the server cleans up after astreduce dies: a loaded machine is slow to
    while (running.exists() or waiting.exists() or _alive(sleeper)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running.exists() and not waiting.exists()
    assert not _alive(sleeper)


def test_a_spare_confined_otherwise_does_not_serve(tmp_path: Path) -> None:
    # a spare confines itself before its test comes: a test allowed to write elsewhere gets a new one
    allowed = tmp_path / "allowed"
    allowed.mkdir()
    oracle = ExecOracle(timeout=30)
    try:
        writes = f"open({str(allowed / 'x')!r}, 'w').write('x')\n"
        assert oracle.run(writes).ending == "exception"  # confined to its folder: PermissionError
        oracle.limits = replace(oracle.limits, writable=(str(allowed),))
        run = oracle.run(writes)
        assert run.ending == "ok", run
        assert (allowed / "x").read_text() == "x"
    finally:
        oracle.close()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def test_a_candidate_longer_than_a_pipe_holds_reaches_its_child_whole() -> None:
    """A test's message past the pipe's 64 KB (the pipe grows to hold it) and past the 1 MB a pipe may
    grow to (written as the child reads), in statements and compiled whole: the child runs it all."""
    oracle = ExecOracle(timeout=60)
    try:
        for size in (200_000, 3_000_000):
            body = "".join(f"s{i} = {'x' * 1000!r}\n" for i in range(size // 1000))
            check = "raise ValueError(sum(len(v) for k, v in dict(globals()).items() if k.startswith('s')))\n"
            assert oracle.run(body + check).message == str(1000 * (size // 1000))
            verdict = oracle.start(body + check).wait()  # the statements' code, not the whole's
            assert verdict.run.message == str(1000 * (size // 1000))
    finally:
        oracle.close()


def _module(folder: Path, name: str, text: str = "import os\nPID = os.getpid()\n") -> None:
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.py").write_text(text)


def _imported_by_the_test(oracle: ExecOracle, text: str) -> dict[str, bool]:
    """Calibrate on ``text`` (which raises ValueError with a dict: module -> imported in the test's own
    process) and read the answer."""
    verdict = oracle.calibrate(text)
    assert verdict.run.ending == "exception" and verdict.run.exception == "ValueError", verdict.run
    answer: dict[str, bool] = ast.literal_eval(verdict.run.message)
    return answer


@pytest.fixture
def new_server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A folder of installed-like modules on ``sys.path``, and a fork server started after it was put there."""
    library = tmp_path / "library"
    library.mkdir()
    monkeypatch.setattr(sys, "path", [*sys.path, str(library)])  # not first: a test's folder takes that place
    monkeypatch.setattr(forkserver, "_preloads", {})
    forget_server()
    yield library
    forget_server()


def test_the_originals_leading_imports_are_made_once_by_the_server(new_server: Path, tmp_path: Path) -> None:
    # imported by the server (its PID is not the test's): the leading import of an installed module;
    # imported by each test: a module beside the input, and an import made after the program's own code
    _module(new_server, "warm_first")
    _module(new_server, "warm_later")
    project = tmp_path / "project"
    _module(project, "beside")
    text = (
        '"""A program."""\n__all__ = ["main"]\nimport os\nimport warm_first\nimport beside\n'
        "os.environ['CHOSEN'] = 'yes'\nimport warm_later\n"
        "raise ValueError({m.__name__: m.PID == os.getpid() for m in (warm_first, beside, warm_later)})\n"
    )
    oracle = ExecOracle(timeout=30, search_path=str(project))
    try:
        assert _imported_by_the_test(oracle, text) == {"warm_first": False, "beside": True, "warm_later": True}
        server = running_server()
        assert server is not None and server.fresh
    finally:
        oracle.close()


def test_a_candidate_finds_a_plain_runs_modules_and_limits_not_astreduces(new_server: Path) -> None:
    # astreduce raises its own recursion limit for deep inputs; a plain run has the interpreter's
    plain = subprocess.run([sys.executable, "-c", "import sys; print(sys.getrecursionlimit())"], capture_output=True, text=True)
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)
    oracle = ExecOracle(timeout=30)
    try:
        names = ("click", "astreduce.search.greedy", "astreduce.source.tree")
        run = oracle.run(f"import sys\nraise ValueError(([m for m in {names!r} if m in sys.modules], sys.getrecursionlimit()))\n")
        assert run.message == f"([], {int(plain.stdout)})", run
    finally:
        oracle.close()
        sys.setrecursionlimit(saved)


def test_an_import_that_starts_a_thread_is_left_to_each_test(new_server: Path) -> None:
    # a fork keeps no thread but its caller's: a server whose imports started one is replaced by one without
    _module(new_server, "threaded", "import os, threading, time\nthreading.Thread(target=time.sleep, args=(30,), daemon=True).start()\nPID = os.getpid()\n")
    oracle = ExecOracle(timeout=30)
    try:
        answer = _imported_by_the_test(oracle, "import threaded, os, threading\nraise ValueError({'threaded': threaded.PID == os.getpid(), 'threads': threading.active_count() == 2})\n")
        assert answer == {"threaded": True, "threads": True}
    finally:
        oracle.close()


def test_a_server_that_cannot_start_is_a_fork_of_astreduce(new_server: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # an interpreter that cannot run the server (3.6 reads no `from __future__ import annotations`)
    old = Path(subprocess.run(["pyenv", "root"], capture_output=True, text=True).stdout.strip()) / "versions/3.6.15/bin/python3.6"
    if not old.exists():
        pytest.skip("no Python 3.6 here")
    monkeypatch.setattr(sys, "executable", str(old))
    monkeypatch.setattr(forkserver, "_fresh_works", True)
    oracle = ExecOracle(timeout=30)
    try:
        assert _parent_of_a_test(oracle) in running_server().rooms()  # type: ignore[union-attr]
        server = running_server()
        assert server is not None and not server.fresh and not forkserver._fresh_works
    finally:
        oracle.close()
        monkeypatch.undo()
        forkserver._fresh_works = True


@pytest.mark.parametrize(
    ("text", "append", "expected"),
    [
        # leading imports after a docstring and literals; after the program's own code, only what is loaded here
        ('"""Doc."""\n__all__ = ["f"]\nVERSION: str = "1"\nimport not_loaded_a\nfrom not_loaded_b import c\nx = f()\nimport not_loaded_d\nimport json\n',
         "", ("not_loaded_a", "not_loaded_b", "json")),
        # a call before the imports: none is leading
        ("setup()\nimport not_loaded_a\nimport os.path\n", "", ("os.path",)),
        # relative imports name no module; nested imports count as later ones
        ("from . import sibling\nfrom .pkg import thing\ndef f():\n    import not_loaded_a\n    import json\n", "", ("json",)),
        # the appended script runs after the candidate: its imports are never leading
        ("import not_loaded_a\n", "import not_loaded_b\nimport json\n", ("not_loaded_a", "json")),
        # a text that does not parse names nothing (its append still may)
        ("def f(:\n", "import json\n", ("json",)),
    ],
)
def test_the_imports_preloaded_are_the_leading_ones_and_those_loaded_here(text: str, append: str, expected: tuple[str, ...]) -> None:
    from astreduce.run.preload import preloadable

    assert "json" in sys.modules and "not_loaded_a" not in sys.modules
    assert preloadable(text, append) == expected


def test_a_module_in_the_working_folder_does_not_reach_the_server(tmp_path: Path) -> None:
    # `python -c` puts the working folder first on sys.path: the server must take astreduce's path before it
    # imports anything, or a json.py of the user's would run in it (and end it)
    folder = tmp_path / "work"
    folder.mkdir()
    for name in ("json", "socket", "signal"):
        (folder / f"{name}.py").write_text(f"raise SystemExit('the {name}.py of the working folder ran')\n")
    script = tmp_path / "owner.py"
    script.write_text(
        "from astreduce.oracles.execution import ExecOracle\n"
        "from astreduce.run.forkserver import running_server\n"
        "oracle = ExecOracle(timeout=30)\n"
        "print(oracle.run('raise ValueError(1)\\n').ending, running_server().fresh)\n"
        "oracle.close()\n"
    )
    done = subprocess.run([sys.executable, str(script)], cwd=folder, capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["exception", "True"], done
