"""Warm pytest processes (zygotes): started once under the project's interpreter, forked for every test.

A plain ``python -m pytest NODE`` spends most of its time before the test:
starting the interpreter, importing pytest and its plugins (the hypothesis
plugin alone, 0.8 s of a 1.2 s run), configuring them, importing conftest
files and the project's third-party imports. A :class:`Zygote` is a
process (``_zygote.py``) that has done all of that once, in a copy of the
project of its own; each test then costs a fork, the candidate's files
written over the copy, and one session (see ``_zygote.py`` for the child's
side).

One zygote runs one test at a time, in its own copy, so ``-j N`` needs N
of them: :class:`ZygotePool` starts them as the tests ask (a start is
asynchronous: a test handed to a zygote that is still starting is sent
when it is ready). A zygote depends on the files it read while starting
(its *inputs*: the conftests and project modules it imported, the
configuration file); a candidate that changes one of them cannot use it.
Such a candidate runs as a plain process, and when the same inputs come
back (the new best changed a conftest) a new pool is started for them.

A zygote runs the project's code (its conftests, their ``pytest_configure``,
its plugins), so it confines itself before it imports pytest, as a test is
confined and with the same allowances, to its folder; each test then
narrows that to the same folder, without the zygote's capabilities
(:func:`~astreduce.run.confine.confine`).
"""

from __future__ import annotations

import itertools
import json
import os
import select
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from astreduce.files import materialise
from astreduce.pytest_node.held import HeldModules
from astreduce.run import confine
from astreduce.run.sandbox import EndedAtExit, Limits, make_workdir, pdeathsig_launcher, remove_workdir

#: The script every zygote runs.
ZYGOTE_SCRIPT = Path(__file__).with_name("_zygote.py")

#: Seconds a zygote may take to start (import pytest, configure) before it counts as failed.
START_TIMEOUT = 300.0

#: Seconds a zygote may take, beyond a test's own timeout, to answer for it.
ANSWER_GRACE = 30.0

_ids = itertools.count(1)


@dataclass(frozen=True)
class Setup:
    """What every zygote of one reduction is started with."""

    python: str
    args: tuple[str, ...]
    """pytest's arguments (the probe plugin, the cache folder, the node)."""
    template: Path
    """The project's files that are not in the tree, copied first into every zygote's folder."""
    path: tuple[str, ...] = ()
    """Folders put on ``sys.path`` after the project's (the probe's)."""
    env: Mapping[str, str] = field(default_factory=dict)
    preimport: tuple[str, ...] = ()
    """Modules the project imports from outside its folder, imported while starting."""
    limits: Limits = field(default_factory=Limits)
    selective: bool = False
    """Hold the project's modules imported, each test importing again only what its candidate changed (``held.py``)."""


@dataclass
class Answer:
    """How one test ended in a zygote, as the zygote reports it."""

    ending: str
    """ok (the session ran; see ``exit`` and ``failures``), timeout, crash, cancelled, lost (the zygote died),
    or unstarted (the zygote could not start: the test's own files may be why)."""
    exit: int | None = None
    failures: list[dict[str, str]] | None = None
    seconds: float = 0.0
    cpu: float | None = None
    """The CPU seconds the test's child spent, when it said."""
    detail: str = ""
    dirty: bool = False
    modules: list[str] = field(default_factory=list)
    """For a learning test: the modules from outside the project its session imported (the zygote has them now)."""
    unsafe: list[str] = field(default_factory=list)
    """Held modules the test kept whose state its re-imports changed: its outcome may not be a full import's."""
    lines: dict[str, list[int]] | None = None
    """For a traced test: the lines its child executed in the project's files, by path."""


def _float_or_none(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) else None


def _lines_or_none(value: Any) -> dict[str, list[int]] | None:
    if not isinstance(value, dict):
        return None
    return {str(path): [n for n in numbers if isinstance(n, int)] for path, numbers in value.items() if isinstance(numbers, list)}


class ZygoteStartError(Exception):
    """A zygote could not start; ``kind`` is ``pytest`` (no pytest) or ``configure``."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


class Zygote:
    """One warm pytest process in its own copy of the project, running one test at a time.

    Args:
        setup: how to start it.
        tree: the tree files its copy starts with (the deferred conftests left out).
        defer: conftests the children import (see ``_zygote.py``).
    """

    def __init__(self, setup: Setup, tree: Mapping[str, str], defer: frozenset[str] = frozenset()) -> None:
        self.folder = Path(make_workdir())  # in the room folder: claimed, as every test's
        self.project = self.folder / "p"
        shutil.copytree(setup.template, self.project, symlinks=True)
        self.files = {p: t for p, t in tree.items() if p not in defer}
        """The tree files in the copy now, as the last test left them."""
        materialise(self.files, self.project)
        self.defer = defer
        self.inputs: tuple[str, ...] | None = None
        """The files it read while starting (known once it is ready)."""
        self.error: ZygoteStartError | None = None
        self.running: int | None = None
        """The id of the test it runs (or of a cancelled one whose answer is still to come)."""
        self.cancelled = False
        self.queued: dict[str, Any] | None = None
        """A request waiting for the zygote to be ready."""
        self.answers: dict[int, Answer] = {}
        self.held = HeldModules() if setup.selective else None
        """The project's modules held imported, and what each candidate imports again (None: every test imports all)."""
        self.hold_error = ""
        """Why the last hold failed (a module that does not import on its own), if it did."""
        self.preimport = setup.preimport
        self.testing: tuple[int, Mapping[str, str], list[str]] | None = None
        """The test running: its id, tree and the held modules it drops."""
        self.started = time.monotonic()
        self.log = self.folder / "log.txt"
        cache = self.folder / "cache"
        env = {**os.environ, **setup.env, "PYTHONDONTWRITEBYTECODE": "1"}
        launcher = pdeathsig_launcher() or []
        _live.add(self)
        self.process = subprocess.Popen(
            [*launcher, setup.python, str(ZYGOTE_SCRIPT)], cwd=self.project, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, start_new_session=True,
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.fd = self.process.stdout.fileno()
        os.set_blocking(self.fd, False)
        self._buffer = b""
        self._write({
            "args": [*setup.args, "-o", f"cache_dir={cache}"], "defer": sorted(defer), "log": str(self.log),
            "path": list(setup.path), "preimport": list(setup.preimport), "limits": _rlimits(setup.limits),
            "confine_module": confine.__file__,
            "confine": None if not setup.limits.confine else {
                "writable": list(setup.limits.writable), "network": setup.limits.network,
            },
        })

    # --- the process --------------------------------------------------------------

    @property
    def ready(self) -> bool:
        return self.inputs is not None

    @property
    def dead(self) -> bool:
        return self.error is not None

    @property
    def idle(self) -> bool:
        return self.ready and self.running is None and self.queued is None

    def _write(self, message: dict[str, Any]) -> bool:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write((json.dumps(message) + "\n").encode("ascii"))
            stdin.flush()
            return True
        except OSError:  # it died: its output ends, and pump() says so
            return False

    def pump(self) -> None:
        """Read what the zygote has said (never blocks), and act on it."""
        if self.dead:
            return
        while True:
            try:
                chunk = os.read(self.fd, 1 << 20)
            except BlockingIOError:
                break
            except OSError:
                chunk = b""
            if not chunk:
                self._died()
                return
            self._buffer += chunk
        while b"\n" in self._buffer:
            line, _, self._buffer = self._buffer.partition(b"\n")
            try:
                message = json.loads(line.decode("utf-8", "surrogateescape"))
            except ValueError:
                continue
            self._heard(message)

    def _heard(self, message: dict[str, Any]) -> None:
        if "held" in message:
            if message.get("error") and self.held is not None:
                self.hold_error = str(message["error"])
                self.held.refused()
            return
        if "error" in message:
            self.error = ZygoteStartError(str(message["error"]), str(message.get("detail", "")))
            self.close()
            return
        if message.get("ready"):
            self.inputs = tuple(message.get("inputs", ()))
            self.pytest_version = str(message.get("pytest", ""))
            if self.queued is not None:
                queued, self.queued = self.queued, None
                self._send(queued)
            return
        answer = Answer(
            ending=str(message.get("ending", "crash")), exit=message.get("exit"), failures=message.get("failures"),
            seconds=float(message.get("seconds", 0.0)), cpu=_float_or_none(message.get("cpu")), detail=str(message.get("detail", "")), dirty=bool(message.get("dirty")),
            modules=list(message.get("modules") or []), unsafe=list(message.get("unsafe") or []),
            lines=_lines_or_none(message.get("lines")),
        )
        ident = message.get("id")
        if self.held is not None and self.testing is not None and self.testing[0] == ident:
            _, tree, drop = self.testing
            collected = answer.ending == "ok" and not any(f.get("when") == "collect" for f in answer.failures or [])
            self.held.seen(tree, message.get("project"), collected and not answer.unsafe)
            if answer.unsafe:
                self.held.tie(drop, answer.unsafe)
        if isinstance(ident, int) and ident == self.running:
            self.running = None
            if not self.cancelled:
                self.answers[ident] = answer
            self.cancelled = False

    def _died(self) -> None:
        started = self.ready
        if self.error is None:
            self.error = ZygoteStartError("configure", self._log_tail() or "the warm pytest process ended")
        if self.running is not None and not self.cancelled:
            # a zygote that could not start (a candidate's conftest that fails) leaves its test to a plain run
            ending = "lost" if started else "unstarted"
            self.answers[self.running] = Answer(ending, detail=f"the warm pytest process ended ({self.error.detail})")
        self.running = None
        self.close()

    def _log_tail(self) -> str:
        try:
            lines = [line for line in self.log.read_text(errors="replace").splitlines() if line.strip()]
        except OSError:
            return ""
        return lines[-1].strip() if lines else ""

    def wait_ready(self, timeout: float = START_TIMEOUT) -> None:
        """Wait until the zygote is ready.

        Raises:
            ZygoteStartError: it could not start (no pytest, a failing configuration).
        """
        deadline = time.monotonic() + timeout
        while not self.ready and not self.dead:
            left = deadline - time.monotonic()
            if left <= 0:
                self.error = ZygoteStartError("configure", f"pytest did not start within {timeout:g} s")
                self.close()
                break
            select.select([self.fd], [], [], left)
            self.pump()
        if self.error is not None:
            raise self.error

    # --- tests --------------------------------------------------------------------

    def start(self, tree: Mapping[str, str], timeout: float, learn: bool = False, cpu: float | None = None, trace: str | None = None) -> int:
        """Begin a test of ``tree`` (sent now, or as soon as the zygote is ready); its id.

        With ``learn``, the zygote also imports what the test's session
        imported from outside the project, and names it in the answer;
        ``cpu``: the CPU seconds the test may spend (None: no budget but the
        timeout); ``trace``: the coverage tracer's text, run in the test's
        child (its answer's ``lines``).
        """
        ident = next(_ids)
        drop: list[str] = []
        if self.held is not None and self.ready:
            planned = self.held.plan(tree)
            if planned is not None:  # the modules of a tree whose test imported them all, held from now on (none: no more)
                anchor, modules = planned
                self._send({**self._bring(anchor), "hold": [list(m) for m in modules], "preimport": list(self.preimport)})
            drop = self.held.dropped(tree)
        request = {**self._bring(tree), "id": ident, "timeout": timeout, "learn": learn, "cpu": cpu, "drop": drop,
                   "project": self.held is not None, "trace": trace}
        self.testing = (ident, tree, drop)
        self.running = ident
        if self.ready:
            self._send(request)
        else:
            self.queued = request
        return ident

    def _bring(self, tree: Mapping[str, str]) -> dict[str, Any]:
        """The files to write and delete to bring the zygote's folder to ``tree``."""
        write = {p: t for p, t in tree.items() if self.files.get(p) is not t and self.files.get(p) != t}
        delete = [p for p in self.files if p not in tree]
        self.files = dict(tree)
        return {"write": write, "delete": delete}

    def stop_holding(self) -> None:
        """Every test imports the whole project from now on (the holder is released before the next test)."""
        if self.held is not None:
            self.held.off = True

    def _send(self, request: dict[str, Any]) -> None:
        if not self._write(request):
            self._died()

    def answer(self, ident: int) -> Answer | None:
        """The answer for test ``ident`` once it is there (never blocks)."""
        self.pump()
        return self.answers.pop(ident, None)

    def wait(self, ident: int, timeout: float) -> Answer:
        """Wait for the answer for test ``ident``; a zygote that does not answer in time is ended."""
        deadline = time.monotonic() + timeout + ANSWER_GRACE + (START_TIMEOUT if not self.ready else 0.0)
        while True:
            found = self.answer(ident)
            if found is not None:
                return found
            left = deadline - time.monotonic()
            if left <= 0 or self.dead:
                started = self.ready
                self.close()
                ending = "lost" if started else "unstarted"
                return self.answers.pop(ident, None) or Answer(ending, detail="the warm pytest process did not answer")
            select.select([self.fd], [], [], left)

    def cancel(self, ident: int) -> None:
        """End test ``ident`` at once; the zygote is busy until it says so."""
        if self.running != ident:
            self.answers.pop(ident, None)
            return
        if self.queued is not None and self.queued["id"] == ident:
            self.queued = None
            self.running = None
            return
        self.cancelled = True
        if not self._write({"cancel": ident}):
            self._died()

    def close(self) -> None:
        """End the process and remove its folder; a test it was running ends as lost (run plain instead)."""
        if self.running is not None and not self.cancelled and self.running not in self.answers:
            self.answers[self.running] = Answer("lost", detail="the warm pytest process was ended")
        self.running = None
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except OSError:
                pass
        for stream in (self.process.stdin, self.process.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL does not fail
            pass
        if self.error is None:
            self.error = ZygoteStartError("configure", "closed")
        remove_workdir(str(self.folder))
        _live.discard(self)


#: Zygotes not yet closed: closed at exit, so that none outlives astreduce or leaves its folder.
_live: EndedAtExit[Zygote] = EndedAtExit(Zygote.close)


def _rlimits(limits: Limits) -> dict[str, int]:
    return {
        "RLIMIT_AS": limits.memory_bytes, "RLIMIT_FSIZE": limits.file_bytes, "RLIMIT_NPROC": limits.processes,
    }


class ZygotePool:
    """The zygotes of one reduction, by the inputs they were started with.

    Args:
        setup: how each zygote starts.
        defer: conftests the children import instead of the zygote.
        size: most zygotes of one key kept (the tests run at once, plus one).
    """

    #: Candidates with the same new inputs before a pool is started for them.
    NEW_KEY_AFTER = 2
    #: Keys with zygotes at once: the current best's and the one before.
    KEYS = 2
    #: Seconds to wait for a zygote whose test was cancelled before starting another.
    DRAIN_WAIT = 1.0

    def __init__(self, setup: Setup, defer: frozenset[str], size: int) -> None:
        self.setup = setup
        self.defer = defer
        self.size = max(1, size)
        self.inputs: tuple[str, ...] = ()
        self.pools: dict[tuple[str | None, ...], list[Zygote]] = {}
        self.seen: dict[tuple[str | None, ...], int] = {}
        self.failed: set[tuple[str | None, ...]] = set()
        """Keys whose zygote could not start: their candidates run plain."""
        self.started = 0
        self._first: tuple[Zygote, dict[str, str]] | None = None
        self.retiring: list[Zygote] = []
        """Zygotes of a retired key still running a test: ended when it is released."""

    def learned(self, modules: list[str]) -> None:
        """Zygotes started from now on import ``modules`` too (what a learning test's session imported)."""
        known = set(self.setup.preimport)
        more = tuple(m for m in modules if m not in known)
        if more:
            self.setup = replace(self.setup, preimport=self.setup.preimport + more)

    def stop_holding(self) -> None:
        """No zygote holds the project's modules from now on: every test imports them all."""
        self.setup = replace(self.setup, selective=False)
        for zygote in [*self.retiring, *(z for zygotes in self.pools.values() for z in zygotes)]:
            zygote.stop_holding()

    def begin(self, tree: Mapping[str, str]) -> None:
        """Start the first zygote on ``tree`` (the original), without waiting for it (see :meth:`wait_first`)."""
        self._first = (Zygote(self.setup, tree, self.defer), dict(tree))
        self.started += 1

    def wait_first(self) -> None:
        """Wait for the first zygote; its inputs become the pool's.

        Raises:
            ZygoteStartError: it could not start.
        """
        assert self._first is not None
        zygote, tree = self._first
        self._first = None
        zygote.wait_ready()  # a zygote that fails closes itself
        assert zygote.inputs is not None
        self.inputs = zygote.inputs
        self.pools[self.key(tree)] = [zygote]

    def key(self, tree: Mapping[str, str]) -> tuple[str | None, ...]:
        return tuple(tree.get(p) for p in self.inputs)

    def acquire(self, tree: Mapping[str, str]) -> Zygote | None:
        """A zygote for ``tree``: an idle one, or a new one while the pool is not full; None: run it plain."""
        key = self.key(tree)
        if key in self.failed:
            return None
        zygotes = self.pools.get(key)
        if zygotes is None:
            self.seen[key] = self.seen.get(key, 0) + 1
            if self.seen[key] < self.NEW_KEY_AFTER:
                return None
            zygotes = self.pools[key] = []
            self._retire_old(key)
        found = self._idle(zygotes)
        if found is None and any(z.cancelled for z in zygotes):
            # a cancelled test's zygote answers within milliseconds: cheaper than starting another
            deadline = time.monotonic() + self.DRAIN_WAIT
            while found is None and any(z.cancelled for z in zygotes) and time.monotonic() < deadline:
                select.select([z.fd for z in zygotes if z.cancelled], [], [], max(0.0, deadline - time.monotonic()))
                found = self._idle(zygotes)
        if found is not None:
            return found
        if len(zygotes) < self.size:
            zygote = Zygote(self.setup, tree, self.defer)
            self.started += 1
            zygotes.append(zygote)
            return zygote
        return None

    @staticmethod
    def _idle(zygotes: list[Zygote]) -> Zygote | None:
        for zygote in list(zygotes):
            zygote.pump()
            if zygote.dead:
                zygotes.remove(zygote)
            elif zygote.idle:
                return zygote
        return None

    def release(self, zygote: Zygote, answer: Answer) -> None:
        """After a test: a zygote whose folder the test changed (or that died, or whose key retired) is ended."""
        if zygote in self.retiring:
            self.retiring.remove(zygote)
            zygote.close()
            return
        if answer.dirty or zygote.dead:
            zygote.close()
            for key, zygotes in self.pools.items():
                if zygote in zygotes:
                    zygotes.remove(zygote)
                    if answer.ending == "unstarted":
                        self.failed.add(key)

    def _retire_old(self, keep: tuple[str | None, ...]) -> None:
        """End the zygotes of the oldest keys; one running a test ends when its test is released."""
        while len(self.pools) > self.KEYS:
            oldest = next(k for k in self.pools if k != keep)
            for zygote in self.pools.pop(oldest):
                zygote.pump()
                if zygote.running is not None and not zygote.dead:
                    self.retiring.append(zygote)
                else:
                    zygote.close()

    def close(self) -> None:
        if self._first is not None:
            self._first[0].close()
            self._first = None
        for zygote in [*self.retiring, *(z for zygotes in self.pools.values() for z in zygotes)]:
            zygote.close()
        self.retiring.clear()
        self.pools.clear()
