"""The fork server: the exec oracle's children are forked by a small process, not by astreduce itself."""

from __future__ import annotations

import os
import signal
import time

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
