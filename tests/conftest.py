"""Shared pytest configuration.

``tests/data`` holds inputs, not tests: a transform case such as
``compare-to-bool/if_test.py`` matches pytest's ``*_test.py`` pattern and
would be imported (and run) as a test module. ``dask_cluster`` starts a
local Dask cluster for the ``--dask`` tests, once per session.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

collect_ignore_glob = ["data/*"]


@pytest.fixture(autouse=True)
def _projects_run_without_autoloaded_plugins(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pytest runs a test starts (astreduce's plain and warm runs of a project, under this interpreter) load
    no plugin by entry point: the suite's own plugins (hypothesis's, xdist's) are no plugin of the projects'.
    hypothesis's alone costs 1.4 s of a 2.1 s plain run of the small project. A test about plugins says so with
    ``@pytest.mark.plugins``; ``corpora/pytest/shop_hypothesis`` runs hypothesis's as a project's plugin."""
    if request.node.get_closest_marker("plugins") is None:
        monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


#: Seconds the local cluster may take to start (a loaded CI machine starts a worker in about 5 s).
CLUSTER_START = 90.0


@pytest.fixture(scope="session")
def dask_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Dask scheduler and two workers (``w1``, ``w2``, one thread each) on 127.0.0.1: the scheduler's address.

    Real ``dask scheduler`` and ``dask worker`` processes, as a user starts
    them. They are not children of the test process (tests count its
    children to find leaked test processes): a shell starts them in the
    background and exits. At the end of the session the scheduler closes its
    workers and itself; SIGKILL ends whatever is left. Should the session
    die first, the workers leave when the scheduler has been gone 60 s, the
    scheduler after 15 idle minutes. Skipped only when ``distributed`` is
    not installed.
    """
    pytest.importorskip("distributed")
    folder = tmp_path_factory.mktemp("dask")
    scheduler_file = folder / "scheduler.json"
    pids: list[int] = []
    address = ""
    try:
        pids.append(_detached(folder / "scheduler.log", "scheduler", "--host", "127.0.0.1", "--port", "0",
                              "--no-dashboard", "--idle-timeout", "900", "--scheduler-file", str(scheduler_file)))
        address = _scheduler_address(scheduler_file, pids[0])
        for name in ("w1", "w2"):
            pids.append(_detached(folder / f"{name}.log", "worker", address, "--name", name, "--nthreads", "1",
                                  "--no-nanny", "--no-dashboard", "--death-timeout", "60", "--host", "127.0.0.1",
                                  "--local-directory", str(folder / name)))
        _wait_for_workers(address, 2)
        yield address
    finally:
        if address:
            _shut_down(address)
        deadline = time.monotonic() + 15
        while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        for pid in pids:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def _detached(log: Path, *args: str) -> int:
    """Start ``python -m dask ARGS`` in the background of a shell that exits at once; its pid."""
    started = subprocess.run(
        ["/bin/sh", "-c", 'log=$1; shift; "$@" >"$log" 2>&1 </dev/null & echo $!', "sh", str(log),
         sys.executable, "-m", "dask", *args],
        cwd=log.parent, capture_output=True, text=True, check=True,
    )
    return int(started.stdout)


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie its new parent has not reaped yet does not)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rpartition(b")")[2].split()[0] != b"Z"
    except OSError:
        return False


def _scheduler_address(scheduler_file: Path, scheduler: int) -> str:
    deadline = time.monotonic() + CLUSTER_START
    while time.monotonic() < deadline:
        if not _alive(scheduler):
            raise RuntimeError(f"dask scheduler exited; see {scheduler_file.parent / 'scheduler.log'}")
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
