"""A worker process under another interpreter (``--python``): started once per job slot and reused,
it forks a child per request (:mod:`astreduce.run._worker_main`), so a test costs a fork, not an
interpreter's start-up."""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from pathlib import Path
from typing import IO

from astreduce.run.sandbox import kill_group

#: The worker script; ``--entry`` makes it the tree oracle's runner too.
WORKER_SCRIPT = Path(__file__).with_name("_worker_main.py")


#: Seconds a worker has to acknowledge a request (it forks a child and replies with its pid).
REPLY_SECONDS = 60.0

#: The detail of a run whose worker died or never answered.
WORKER_DIED = "the worker died"


class Worker:
    """One worker process under the chosen interpreter."""

    def __init__(self, python: str, script: Path = WORKER_SCRIPT) -> None:
        self.popen = subprocess.Popen(
            [python, "-u", str(script)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        assert self.popen.stdin is not None and self.popen.stdout is not None
        self.stdin: IO[bytes] = self.popen.stdin
        self.stdout: IO[bytes] = self.popen.stdout
        self._pending = b""
        """What the worker wrote after the last whole line read (select() cannot see it in a buffer)."""
        self.busy = False

    @property
    def alive(self) -> bool:
        return self.popen.poll() is None

    def send(self, request: dict[str, object]) -> int | None:
        """Send a request; the pid of the child running it, or None if the worker died or did not answer.

        The worker answers at once (it forks and replies): a worker that says
        nothing within :data:`REPLY_SECONDS` cannot run our script (an
        interpreter that reads its stdin otherwise, a wrapper that hangs).
        """
        try:
            self.stdin.write((json.dumps(request) + "\n").encode("utf-8", errors="surrogateescape"))
            self.stdin.flush()
        except OSError:
            return None
        reply = self.receive(time.monotonic() + REPLY_SECONDS)
        try:
            return int(reply["pid"]) if reply is not None else None  # type: ignore[call-overload]
        except (KeyError, TypeError, ValueError):
            return None

    def receive(self, deadline: float) -> dict[str, object] | None:
        """The next line the worker writes, as JSON; None on a timeout or a dead worker.

        The pipe is read with ``os.read`` into this worker's own buffer: a
        buffered reader could hold the next line (a child's report right
        behind its pid) where ``select`` does not look, and the test would
        wait for its deadline.
        """
        fd = self.stdout.fileno()
        while b"\n" not in self._pending:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], remaining)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:  # the worker died
                    return None
                self._pending += chunk
        line, self._pending = self._pending.split(b"\n", 1)
        try:
            report: dict[str, object] = json.loads(line)
            return report if isinstance(report, dict) else None
        except ValueError:
            return None

    def close(self) -> None:
        kill_group(self.popen.pid)
        try:
            self.popen.wait(5)
        except subprocess.TimeoutExpired:  # pragma: no cover
            pass
        for pipe in (self.stdin, self.stdout):
            try:
                pipe.close()
            except OSError:  # a broken pipe to a dead worker
                pass


__all__ = ["REPLY_SECONDS", "WORKER_DIED", "WORKER_SCRIPT", "Worker"]
