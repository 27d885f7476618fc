"""Shared pytest configuration.

``tests/data`` holds inputs, not tests: a transform case such as
``compare-to-bool/if_test.py`` matches pytest's ``*_test.py`` pattern and
would be imported (and run) as a test module. ``dask_cluster`` starts a
local Dask cluster for the ``--dask`` tests, once per session.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

collect_ignore_glob = ["data/*"]

#: Seconds the local cluster may take to start (a loaded CI machine starts a worker in about 5 s).
CLUSTER_START = 90.0


@pytest.fixture(scope="session")
def dask_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Dask scheduler and two workers (``w1``, ``w2``, one thread each) on 127.0.0.1: the scheduler's address.

    Real ``dask scheduler`` and ``dask worker`` processes, as a user starts
    them; shut down with SIGTERM (then SIGKILL) at the end of the session.
    Skipped only when ``distributed`` is not installed.
    """
    pytest.importorskip("distributed")
    folder = tmp_path_factory.mktemp("dask")
    scheduler_file = folder / "scheduler.json"
    dask = [sys.executable, "-m", "dask"]
    processes: list[subprocess.Popen[bytes]] = []

    def start(*args: str, log: str) -> None:
        with open(folder / log, "wb") as output:
            processes.append(subprocess.Popen([*dask, *args], cwd=folder, stdout=output, stderr=subprocess.STDOUT))

    try:
        start("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
              "--scheduler-file", str(scheduler_file), log="scheduler.log")
        address = _scheduler_address(scheduler_file, processes[0])
        for name in ("w1", "w2"):
            start("worker", address, "--name", name, "--nthreads", "1", "--no-nanny", "--no-dashboard",
                  "--host", "127.0.0.1", "--local-directory", str(folder / name), log=f"{name}.log")
        _wait_for_workers(address, 2)
        yield address
    finally:
        if len(processes) > 1:
            _shut_down(address)
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _scheduler_address(scheduler_file: Path, scheduler: subprocess.Popen[bytes]) -> str:
    deadline = time.monotonic() + CLUSTER_START
    while time.monotonic() < deadline:
        if scheduler.poll() is not None:
            raise RuntimeError(f"dask scheduler exited with status {scheduler.returncode}")
        try:
            address: str = json.loads(scheduler_file.read_text())["address"]
            return address
        except (OSError, ValueError, KeyError):
            time.sleep(0.1)
    raise RuntimeError("dask scheduler did not start")


def _shut_down(address: str) -> None:
    """Ask the scheduler to close its workers, then itself (signals at once leave both complaining)."""
    from distributed import Client

    try:
        with Client(address, timeout=10, set_as_default=False) as client:
            client.shutdown()
    except (OSError, TimeoutError):  # gone already: the signals below end what is left
        pass


def _wait_for_workers(address: str, count: int) -> None:
    from distributed import Client

    with Client(address, timeout=CLUSTER_START, set_as_default=False) as client:
        client.wait_for_workers(count, timeout=CLUSTER_START)
