"""The exec oracle under another interpreter, through reusable worker processes.

``--python 3.8`` runs candidates under that interpreter: a small worker
(:mod:`astreduce.run.worker`, running :mod:`astreduce.run._worker_main`) is started once per job slot and
reused across tests; it forks a child per candidate, so a test costs a fork,
not an interpreter start-up. A worker that dies is started again.
"""

from __future__ import annotations

import signal
import time
from dataclasses import dataclass, field

from astreduce.oracles import Verdict

from astreduce.run import Run, frames_from
from astreduce.oracles.execution import ExecOracle
from astreduce.run.sandbox import kill_group
from astreduce.run.worker import WORKER_DIED, Worker

@dataclass
class WorkerExecOracle(ExecOracle):
    """:class:`ExecOracle` whose candidates run under ``python`` through workers."""

    python: str = ""
    workers: list[Worker] = field(default_factory=list)

    compiles_here = False  # the worker compiles with its own interpreter

    @property
    def identity(self) -> str:
        return f"{super().identity}|{self.python}"

    @property
    def python_path(self) -> str:  # type: ignore[override]  # a field of this oracle's, a constant of the exec oracle's
        return self.python

    def _worker(self) -> Worker:
        for worker in self.workers:
            if not worker.busy and worker.alive:
                return worker
        self.workers = [w for w in self.workers if w.alive]
        worker = Worker(self.python)
        self.workers.append(worker)
        return worker

    def start(self, text: str, compile_here: bool = False) -> WorkerPending:  # type: ignore[override]  # a different pending type
        """Hand ``text`` to a worker; the worker compiles it under its own interpreter (``compile_here`` is moot)."""
        source = text + ("\n" + self.append if self.append else "")
        timeout = self.timeout if self.timeout is not None else 600.0
        limits = self.limits.for_timeout(timeout)
        worker = self._worker()
        worker.busy = True
        pid = worker.send(
            {
                "source": source,
                "filename": self.filename,
                "search_path": self.search_path,
                "cpu": limits.cpu_seconds,
                "memory": self.limits.memory_bytes,
                "fsize": limits.file_bytes,
                "processes": limits.processes,
                "confine": None if not limits.confine else {"writable": list(limits.writable), "network": limits.network},
            }
        )
        return WorkerPending(self, worker, pid, time.monotonic() + timeout, timeout, text.count("\n") + 1)

    def close(self) -> None:
        for worker in self.workers:
            worker.close()
        self.workers = []


class WorkerPending:
    def __init__(self, oracle: WorkerExecOracle, worker: Worker, pid: int | None, deadline: float, timeout: float, lines: int) -> None:
        self.oracle = oracle
        self.lines = lines
        self.worker = worker
        self.pid = pid
        self.deadline = deadline
        self.timeout = timeout
        self.started = time.monotonic()
        self.verdict: Verdict | None = None

    def wait(self) -> Verdict:
        if self.verdict is not None:
            return self.verdict
        run = self.oracle.locate(self._collect(), self.lines)
        self.oracle.tests += 1
        self.oracle.seconds += time.monotonic() - self.started
        self.verdict = Verdict(self.oracle.classify(run), run)
        return self.verdict

    def _collect(self) -> Run:
        def seconds() -> float:
            return time.monotonic() - self.started

        if self.pid is None:
            self._discard_worker()
            return Run("crash", seconds=seconds(), detail=WORKER_DIED)
        report = self.worker.receive(self.deadline)
        if report is None:
            timed_out = time.monotonic() >= self.deadline
            self._kill_child()
            return Run("timeout" if timed_out else "crash", seconds=seconds(), detail=f"ran over {self.timeout:g} s" if timed_out else WORKER_DIED)
        self.worker.busy = False
        if report.get("ending") == "crash" and report.get("signal"):
            name = signal.Signals(int(str(report["signal"]))).name
            return Run("crash", seconds=seconds(), detail=f"killed by {name}")
        return Run(
            ending=str(report.get("ending", "crash")),
            exception=str(report.get("exception", "")),
            message=str(report.get("message", "")),
            frame=str(report.get("frame", "")),
            seconds=seconds(),
            frames=frames_from(report),
        )

    def _kill_child(self) -> None:
        if self.pid is not None:
            kill_group(self.pid)
        # the worker now reports the killed child: read it so the next request lines up
        if self.worker.receive(time.monotonic() + 5) is None:
            self._discard_worker()
        else:
            self.worker.busy = False

    def _discard_worker(self) -> None:
        self.worker.close()
        self.worker.busy = False

    def cancel(self) -> None:
        if self.verdict is None:
            self._kill_child()
            self.verdict = Verdict(self.oracle.classify(Run("crash", detail="cancelled")), Run("crash", detail="cancelled"))


__all__ = ["WORKER_DIED", "WorkerExecOracle"]
