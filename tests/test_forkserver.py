"""The fork server: the exec oracle's children are forked by a small process, not by astreduce itself."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

from astreduce.oracles.execution import ExecOracle
from astreduce.oracles.forkserver import running_server


def _parent_of_a_test(oracle: ExecOracle) -> int:
    run = oracle.run("import os\nraise ValueError(os.getppid())\n")
    assert run.ending == "exception", run
    return int(run.message)


def test_a_test_is_forked_by_the_server_not_by_astreduce() -> None:
    oracle = ExecOracle(timeout=30)
    try:
        parent = _parent_of_a_test(oracle)
        assert parent != os.getpid()
        server = running_server()
        assert server is not None and parent == server.pid
        with open(f"/proc/{parent}/stat") as stat:  # the server is astreduce's child
            assert int(stat.read().rpartition(")")[2].split()[1]) == os.getpid()
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
        first = _parent_of_a_test(oracle)
        oracle.close()  # its spare, forked by the server, goes first
        os.kill(first, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and os.waitpid(first, os.WNOHANG)[0] == 0:
            time.sleep(0.01)
        second = _parent_of_a_test(oracle)
        assert second != first
        assert _parent_of_a_test(oracle) == second  # and the new server stays
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
    deadline = time.monotonic() + 10
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
