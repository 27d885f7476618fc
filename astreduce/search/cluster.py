"""Tests on a Dask ``distributed`` cluster (``--dask ADDRESS``): another backend for the scheduler.

The scheduler (:mod:`astreduce.search.scheduler`) starts tests through a
backend's ``start(candidate) -> Pending``; here ``start`` submits the test to
the cluster and the pending waits for its future. The search, the cache and
the speculation stay in this process, and outcomes are read in the search's
order, so the result and the number of tests are those of a local run,
whatever the number of workers.

What a test needs on a worker is the oracle, calibrated. The original is
calibrated *on a worker* (:meth:`Cluster.build_oracle`): the oracle is built
there from the user's options, runs the original three times, and comes
back as a :class:`~astreduce.oracles.recipe.Recipe`: its class and its settings (target, time limits,
command, interpreter as the worker resolved it), never its live parts (a
forked child waiting, started processes). The recipe is scattered to every
worker once; each worker rebuilds the oracle from it the first time it
needs it, keeps it (with its forked spare child or gated processes) for its
next tests, and runs every test exactly as a local run does, in its own
sandbox: the exec oracle forks the worker's process, a command runs in a
fresh folder holding the candidate under the input's name.

A test the search no longer wants is cancelled: the future is cancelled, and
the worker, which looks every tenth of a second whether its task is still
wanted, kills the test's processes.

``distributed`` is imported only when a cluster is used (``pip install
'astreduce[dask]'``). :meth:`Cluster.map` runs any picklable function over
items on the cluster, results in order: whole jobs (a file of a batch) go
out the same way.
"""

from __future__ import annotations

import fcntl
import os
import select
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar, cast

from astreduce.errors import UsageError
from astreduce.oracles import Oracle, Prepared, Verdict, Wrapper
from astreduce.oracles.options import OracleOptions, Original, build_oracle
from astreduce.oracles.recipe import Recipe, rebuild, recipe_of

#: Seconds to wait for the scheduler to answer, and then for a first worker.
CONNECT_TIMEOUT = 10.0

#: How often a worker looks whether the test it runs is still wanted.
CANCEL_POLL = 0.1

T = TypeVar("T")
R = TypeVar("R")
C = TypeVar("C")
"""A candidate: a text, or a tree of files."""


class ClusterError(UsageError):
    """The cluster cannot be reached, has no workers, or lost a test (exit 2)."""


# --- on the workers ------------------------------------------------------------

#: Per recipe token, the rebuilt oracles not running a test (one per test running at once).
_idle: dict[str, list[Oracle[str]]] = {}
_idle_lock = threading.Lock()
#: Recipe tokens whose reduction has ended.
_forgotten: set[str] = set()


def _borrow(recipe: Recipe) -> Oracle[str]:
    with _idle_lock:
        ready = _idle.get(recipe.token)
        if ready:
            return ready.pop()
    return rebuild(recipe)


def _give_back(token: str, oracle: Oracle[str]) -> None:
    with _idle_lock:
        if token not in _forgotten:
            _idle.setdefault(token, []).append(oracle)
            return
    oracle.close()  # its reduction ended while this test still ran


def _forget(token: str) -> int:
    """Close this worker's idle copies of an oracle (its spare child, its gated processes, its warm pytest);
    a copy still running a test is closed when the test ends."""
    with _idle_lock:
        ready = _idle.pop(token, [])
        _forgotten.add(token)
    for oracle in ready:
        oracle.close()
    return len(ready)


def _worker_name() -> str:
    from distributed import get_worker

    worker = get_worker()
    return str(worker.name if worker.name is not None else worker.address)


def _still_wanted() -> bool:
    """Whether the task this thread runs is still wanted (a cancelled one is released on the worker)."""
    from distributed import get_worker

    worker = get_worker()
    try:
        task = worker.state.tasks.get(worker.get_current_task())
    except Exception:  # a worker without this bookkeeping: run every test to its end
        return True
    return task is not None and task.state not in ("cancelled", "released", "forgotten")


def run_test(recipe: Recipe, text: str) -> tuple[Verdict | None, str]:
    """A worker's task: judge ``text`` with the oracle of ``recipe``; its verdict (None: cancelled) and the worker."""
    oracle = _borrow(recipe)
    try:
        pending = oracle.start(text)
        done = getattr(pending, "done", None)
        while callable(done) and not done():
            ready = getattr(pending, "ready_fds", None)
            fds = ready() if callable(ready) else None
            if fds:
                select.select(fds, [], [], CANCEL_POLL)
            elif fds is None:
                threading.Event().wait(CANCEL_POLL)
            if not _still_wanted():
                pending.cancel()
                return None, _worker_name()
        return pending.wait(), _worker_name()
    finally:
        _give_back(recipe.token, oracle)


def calibrate_here(options: OracleOptions, original: Original) -> Recipe:
    """A worker's task: build and calibrate the oracle ``options`` describe on the original; its recipe."""
    oracle = build_oracle(options, original)
    try:
        return recipe_of(oracle)
    finally:
        oracle.close()


# --- here ------------------------------------------------------------------------


class Cluster:
    """A connection to a Dask scheduler; the tests of the oracles it builds run on its workers.

    Use :func:`connect`; :meth:`close` when done.
    """

    def __init__(self, client: Any, address: str) -> None:
        self.client = client
        self.address = address
        self._wake_read, self._wake_write = os.pipe()
        for fd in (self._wake_read, self._wake_write):
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)

    @property
    def threads(self) -> int:
        """Tests the workers can run at once (their threads), at least 1."""
        threads: dict[str, int] = self.client.nthreads()
        return max(1, sum(threads.values()))

    def submit(self, function: Callable[..., R], *args: Any) -> Any:
        """Run ``function(*args)`` on a worker; its future (``.result()`` waits)."""
        return self.client.submit(function, *args, pure=False)

    def map(self, function: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """``function`` applied to every item on the workers, at once; the results in the items' order.

        Raises:
            whatever ``function`` raised first, in the items' order (astreduce's errors as they are).
        """
        futures = self.client.map(function, list(items), pure=False)
        results: list[R] = self.client.gather(futures)
        return results

    def build_oracle(self, options: OracleOptions, original: Original) -> ClusterOracle[str]:
        """The oracle ``options`` describe, calibrated on a worker: tests run on the cluster.

        Raises:
            UsageError, NotReproducibleError: as :func:`~astreduce.oracles.options.build_oracle` raises them on the worker.
            ClusterError: the cluster failed to run the calibration.
        """
        recipe = _result(self.submit(calibrate_here, options, original))
        return ClusterOracle(self, recipe)

    def adopt(self, oracle: Oracle[C]) -> ClusterOracle[C]:
        """An oracle calibrated here (``reduce_source(oracle=...)``, ``interesting=``, a tree's, a pytest node's),
        its tests sent to the cluster."""
        if isinstance(oracle, ClusterOracle):
            return oracle
        return ClusterOracle(self, recipe_of(oracle))

    def wake(self, _future: object) -> None:
        """A test ended (a future's callback): make :attr:`ended_fd` readable."""
        try:
            os.write(self._wake_write, b".")
        except OSError:  # the pipe is full (someone will wake anyway) or closed
            pass

    def drain(self) -> None:
        """Empty :attr:`ended_fd` before looking at the tests (those that ended since will wake it again)."""
        try:
            while os.read(self._wake_read, 4096):
                pass
        except OSError:
            pass

    @property
    def ended_fd(self) -> int:
        """A descriptor that becomes readable once any of the cluster's tests has ended."""
        return self._wake_read

    def close(self) -> None:
        """Disconnect (the workers keep running); the wake-up pipe goes last, after any callback."""
        try:
            self.client.close()
        finally:
            for fd in (self._wake_read, self._wake_write):
                os.close(fd)


def connect(address: str, timeout: float | None = None) -> Cluster:
    """Connect to the Dask scheduler at ``address`` and wait for a worker.

    Raises:
        UsageError: ``distributed`` is not installed.
        ClusterError: the scheduler cannot be reached, or no worker joins within ``timeout``.
    """
    timeout = CONNECT_TIMEOUT if timeout is None else timeout
    try:
        from distributed import Client
    except ImportError:
        raise UsageError("--dask needs the distributed package: pip install 'astreduce[dask]'") from None
    try:
        client = Client(address, timeout=timeout, set_as_default=False)  # type: ignore[no-untyped-call]  # distributed is untyped
    except Exception as error:  # OSError, TimeoutError, ValueError (a malformed address)
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {_error_line(error)}") from None
    try:
        client.wait_for_workers(1, timeout=timeout)
    except Exception:
        client.close()  # type: ignore[no-untyped-call]  # distributed is untyped
        raise ClusterError(f"the Dask scheduler at {address} has no workers (start some with: dask worker {address})") from None
    return Cluster(client, address)


class ClusterOracle(Wrapper[C]):
    """An oracle whose tests run on the cluster's workers; the :class:`Oracle` contract, so any job can use it.

    ``inner`` is a local copy of the calibrated oracle that never runs a
    test: its target, its compile check and its description serve here.
    :attr:`tests_by_worker` counts, per worker, the tests whose verdict was
    read (calibration and verification runs included; cancelled ones not).
    """

    def __init__(self, cluster: Cluster, recipe: Recipe) -> None:
        # the local copy, of the oracle the recipe was taken from: it never runs a test, but has its traits
        super().__init__(cast("Oracle[C]", rebuild(recipe)))
        self.cluster = cluster
        self.recipe = recipe
        self.tests_by_worker: Counter[str] = Counter()
        self._shipped = cluster.client.scatter(recipe, broadcast=True, hash=False)

    def calibrate(self, candidate: C) -> Verdict:
        """Calibrated on a worker already (or here, for an adopted oracle): one more run of the original."""
        return self.judge(candidate)

    def start(self, candidate: C) -> ClusterPending:
        # a prepared text's code stays here: the worker's copy compiles its own
        shipped = str(candidate) if isinstance(candidate, Prepared) else candidate
        return ClusterPending(self, self.cluster.submit(run_test, self._shipped, shipped))

    def close(self) -> None:
        """Close the workers' copies (spare children, gated processes); the oracle stays usable."""
        try:
            self.cluster.client.run(_forget, self.recipe.token)
        except Exception:  # a worker gone: its copies went with it
            pass
        self.inner.close()


class ClusterPending:
    """A test running on the cluster: ``wait``, ``cancel``, and the scheduler's ``done`` and ``ready_fds``."""

    def __init__(self, oracle: ClusterOracle[Any], future: Any) -> None:
        self.oracle = oracle
        self.future = future
        future.add_done_callback(oracle.cluster.wake)

    def done(self) -> bool:
        self.oracle.cluster.drain()
        return bool(self.future.done())

    def ready_fds(self) -> list[int]:
        """The cluster's wake-up pipe: readable once any of its tests has ended."""
        return [] if self.future.done() else [self.oracle.cluster.ended_fd]

    def wait(self) -> Verdict:
        verdict, worker = _result(self.future)
        if verdict is None:  # cancelled on the worker, yet waited for: cannot happen in the scheduler
            raise ClusterError("a test was cancelled on the cluster before its verdict was read")
        self.oracle.tests_by_worker[worker] += 1
        return verdict  # type: ignore[no-any-return]  # run_test's result

    def cancel(self) -> None:
        self.future.cancel()


def _result(future: Any) -> Any:
    """A future's result; astreduce's own errors as they are, the cluster's as :class:`ClusterError`."""
    from astreduce.errors import AstReduceError

    try:
        return future.result()
    except AstReduceError:
        raise
    except Exception as error:  # a lost worker, a task that could not be pickled, ...
        raise ClusterError(f"the Dask cluster could not run a test: {_error_line(error)}") from None


def _error_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


__all__: Sequence[str] = [
    "Cluster", "ClusterError", "ClusterOracle", "connect", "run_test",
]
