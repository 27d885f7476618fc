"""The scheduler: the one place a search's tests start.

A search hands the scheduler its candidates in the order it would test them
one by one, and reads their outcomes back in that order (:meth:`Scheduler.outcomes`).
At ``-j 1`` each candidate is judged in turn. At ``-j N`` up to N tests run
at once, *speculatively*: besides the next candidates in order, a free slot
may start what the search tests next if an earlier candidate FAILs (its FAIL
side), or the first candidate of the next call. Outcomes are still read in
order, so the first FAIL in the search's own order decides whatever finishes
first: the result and the number of tests are the same for every ``-j``;
only the starts cancelled (:attr:`Scheduler.speculative`) and the time differ.

Two plug points keep the scheduler apart from what it schedules:

* :class:`Backend` starts a test without waiting for it. Today's backend is
  the oracle's ``start`` (:class:`Processes`: a forked child or a command on
  this machine); a cluster is another backend, and no strategy changes.
* :class:`Ledger` is the search's bookkeeping (the :class:`~astreduce.search.session.Session`):
  the outcome cache, the counters, the syntax check and the stop request.
  The scheduler never caches or counts a test itself; it tells the ledger
  when one was read, in order.

Candidates are texts, keyed by a digest of their text (:func:`digest`).
Anything that is not a single file (a tree of files) is encoded as a text by
an adapter first (see :mod:`astreduce.oracles.tree`).
"""

from __future__ import annotations

import itertools
import select
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol

from astreduce.keys import digest
from astreduce.oracles import Finished, Pending, Verdict
from astreduce.outcome import Outcome


class Interrupted(Exception):
    """Raised inside a pass when the user asked to stop; the session keeps its best."""


class Backend(Protocol):
    """Where tests run: starts a candidate's test and returns at once.

    The :class:`~astreduce.oracles.Pending` it returns must offer ``wait()``
    (block until the verdict) and ``cancel()`` (stop at once: the verdict is
    no longer wanted). It may also offer the two methods of :class:`Polling`;
    then a slot freed by any test that ended is refilled at once, not only
    when the test the search needs next ends. A backend that cannot poll
    still gives the same results, with more idle slots.
    """

    def start(self, candidate: str) -> Pending: ...


class Polling(Protocol):
    """What a pending may offer besides ``wait()`` and ``cancel()`` (looked up, not required)."""

    def done(self) -> bool:
        """Whether the test has ended; never blocks."""
        ...

    def ready_fds(self) -> list[int] | None:
        """Descriptors that become readable when the test may have ended (None: it cannot say)."""
        ...


@dataclass(frozen=True)
class Processes:
    """Today's backend: the oracle's own ``start``, which runs the test on this machine."""

    start: Callable[[str], Pending]


class Ledger(Protocol):
    """The search's bookkeeping, as the scheduler sees it: cache, counters, stop request. The search hands it
    to each call of :meth:`Scheduler.outcomes`; the scheduler keeps no reference to it, and only tells it.

    Keys are :func:`digest`\\ s of candidate texts.
    """

    @property
    def oracle_seconds(self) -> float:
        """Time spent waiting for the oracle so far (the scheduler reads it; it tells the waits in :meth:`record`)."""
        ...

    def stopping(self) -> bool:
        """Whether the search must stop before its next test (a stop request, a spent budget)."""
        ...

    def peek(self, key: bytes) -> Outcome | None:
        """The cached outcome of ``key`` in memory (no persistent store: this asks often)."""
        ...

    def lookup(self, key: bytes) -> Outcome | None:
        """The cached outcome of ``key``, from memory or the persistent store."""
        ...

    def admit(self, key: bytes, text: str) -> str | None:
        """``text`` as its test takes it (maybe :class:`~astreduce.oracles.Prepared`), or None when its outcome is
        UNRESOLVED without a test (it does not parse); recorded if so."""
        ...

    def record(self, key: bytes, text: str, outcome: Outcome, seconds: float, verdict: Verdict | None = None) -> Outcome:
        """A test's outcome, read in the search's order, and the seconds waited for it: cache and count them
        (``verdict``: the whole of it, to say how the test ended)."""
        ...

    def hit(self, key: bytes) -> Outcome:
        """A cached outcome, read in the search's order: count the hit."""
        ...


#: The hint ``if_fails(i)``: what the search tests next, in order, if candidate ``i`` is the first to FAIL.
IfFails = Callable[[int], Iterable[str]]
#: The hint ``if_none()``: what the search tests next if no candidate FAILs (None: not known).
IfNone = Callable[[], "str | None"]


class Scheduler:
    """Runs a search's candidates in its order, ``jobs`` at a time, speculatively.

    Args:
        judge: tests one candidate and waits (``-j 1``).
        backend: starts tests without waiting; None runs every test through ``judge``.
        jobs: how many tests run at once.
    """

    def __init__(self, judge: Callable[[str], Verdict], backend: Backend | None = None, jobs: int = 1) -> None:
        self.judge = judge
        self.backend = backend
        self.jobs = jobs
        self.speculative = 0
        """Candidates started ahead and cancelled because an earlier one decided."""
        self.fail_rates = [0.3, 0.5]
        """Moving averages of how often a test FAILs after one that did not (0) and after one that did (1):
        where speculation pays, on the FAIL or the PASS side. FAILs come in runs (a token pass deletes
        token after token, a rare transform fails to apply time after time), so the last outcome tells
        much: on the corpora this guesses wrong 4% less often than one average."""
        self.last_failed = False
        self._began = time.monotonic()
        self._reads = 0
        self._waited = 0.0
        """Tests read, and the seconds waited for them (:meth:`_deeper`: how long a test is)."""
        self._prefetched: dict[bytes, Pending] = {}
        """Candidates started on the FAIL side of the search: what it tests next if the one before FAILs."""

    @property
    def fail_rate(self) -> float:
        """How likely the next test is to FAIL, from the last outcome (see :attr:`fail_rates`)."""
        return self.fail_rates[self.last_failed]

    def outcomes(
        self, ledger: Ledger, texts: Iterable[str], if_fails: IfFails | None = None, if_none: IfNone | None = None,
    ) -> Iterator[Outcome]:
        """Outcomes of candidate texts, lazily, in order, through ``ledger``; cached ones cost no test.

        ``if_fails(i)`` gives the texts the search tests next, in order, if
        the ``i``-th candidate FAILs (read lazily: up to the first that needs
        a test); ``if_none()`` the one it tests next if none does (None: not
        known). With ``jobs`` > 1 they may be started early.
        """
        if self.backend is None or self.jobs <= 1:
            for text in texts:
                yield self._one(ledger, text)
            return
        yield from self._parallel(ledger, texts, if_fails, if_none)

    def close(self) -> None:
        """Cancel every candidate still running ahead (the end of a reduction)."""
        for pending in self._prefetched.values():
            pending.cancel()
        self.speculative += len(self._prefetched)
        self._prefetched.clear()

    # --- one at a time ------------------------------------------------------

    def _one(self, ledger: Ledger, text: str) -> Outcome:
        if ledger.stopping():
            raise Interrupted
        key = digest(text)
        candidate = ledger.admit(key, text)
        if candidate is None:
            return Outcome.UNRESOLVED
        if ledger.lookup(key) is not None:
            return ledger.hit(key)
        started = time.monotonic()
        verdict = self.judge(candidate)
        return self._record(ledger, key, text, verdict, time.monotonic() - started)

    def _record(self, ledger: Ledger, key: bytes, text: str, verdict: Verdict, seconds: float) -> Outcome:
        failed = verdict.outcome is Outcome.FAIL
        self.fail_rates[self.last_failed] = 0.9 * self.fail_rates[self.last_failed] + (0.1 if failed else 0.0)
        self.last_failed = failed
        self._reads += 1
        self._waited += seconds
        return ledger.record(key, text, verdict.outcome, seconds, verdict)

    @staticmethod
    def _wait(pending: Pending) -> tuple[Verdict, float]:
        """The test's verdict, and the seconds waited for it."""
        started = time.monotonic()
        verdict = pending.wait()
        return verdict, time.monotonic() - started

    # --- speculation --------------------------------------------------------

    def _parallel(self, ledger: Ledger, texts: Iterable[str], if_fails: IfFails | None, if_none: IfNone | None) -> Iterator[Outcome]:
        """Keep up to ``jobs`` uncached candidates running ahead; yield outcomes in order.

        The consumer decides on outcomes in order, so the first FAIL in the
        search's own order wins whatever finishes first: results are the same
        for every ``jobs``. A free slot goes to whichever candidate the search
        is likeliest to need (from :attr:`fail_rate` and the outcomes of tests
        that ended but are not read yet): the next one in order, needed if
        none before it FAILs; the one it tests after a candidate of the
        window if that one is the first to FAIL (``if_fails``: the first of
        them that needs a test, for most token deletions do not parse); or,
        once every candidate is drawn, the one it tests after this call if
        nothing FAILs (``if_none``). The last two are kept running into the
        next call, which adopts them if its first candidate that needs a test
        is theirs. When the consumer stops reading, the rest is cancelled at
        once.
        """
        source = iter(texts)
        window: deque[_Entry] = deque()
        running: dict[bytes, Pending] = {}
        inherited = set(self._prefetched)  # started by the previous call: adopted by this one's first test or never
        drawn = 0  # texts taken from ``source``: the index of the next one
        branches: dict[int, bytes | None] = {}  # index -> started on its FAIL side (None: nothing to start)
        look_key: bytes | None = None  # started for after this call
        looked = exhausted = False
        kept: bytes | None = None
        try:
            while True:
                slots_full = False
                while True:
                    self._read_ended(window, running)
                    ahead = sum(1 for entry in window if entry.tested)
                    if ahead + len(self._prefetched) >= self.jobs and not self._deeper(ledger, ahead + len(self._prefetched)):
                        break
                    if self._busy(running) >= self.jobs:
                        slots_full = True
                        break
                    head = drawn - len(window)  # the index of the next outcome
                    order_open = not exhausted or (if_none is not None and not looked)
                    choice = self._likeliest(ledger, window, head, branches if if_fails is not None else None, order_open)
                    if choice is _ORDER:
                        if not exhausted:
                            try:
                                text = next(source)
                            except StopIteration:
                                exhausted = True
                                continue
                            drawn += 1
                            inherited = self._draw(ledger, window, running, text, inherited)
                            continue
                        assert if_none is not None
                        looked = True
                        following = if_none()
                        look_key = self._prefetch(ledger, () if following is None else (following,), running)
                        continue
                    if choice is None:
                        break
                    assert if_fails is not None and isinstance(choice, int)
                    branches[choice] = self._prefetch(ledger, if_fails(choice), running)
                if not window:
                    kept = look_key
                    return
                if ledger.stopping():
                    raise Interrupted
                if slots_full and window[0].pending is not None:
                    began = time.monotonic()
                    another = self._another_ends_first(ledger, window[0].pending, running)
                    window[0].waited += time.monotonic() - began  # waited for the oracle: :meth:`_deeper` reads it
                    if another:
                        continue  # a test after the next one ended first: its slot takes a new candidate
                entry = window.popleft()
                index = drawn - len(window) - 1
                outcome = self._read(ledger, entry, running)
                if outcome is Outcome.FAIL:
                    kept = branches.pop(index, None)
                self._cancel_prefetched(branches.pop(other) for other in [i for i in branches if i <= index])
                yield outcome
        finally:
            for pending in running.values():
                pending.cancel()
            self.speculative += len(running)
            self._cancel_prefetched([k for k in self._prefetched if k != kept])

    def _likeliest(
        self, ledger: Ledger, window: deque[_Entry], head: int, branches: dict[int, bytes | None] | None, order_open: bool
    ) -> int | object | None:
        """What a free slot should start: ``_ORDER`` (the next in order, or the one after this call
        once every candidate is drawn), the index whose FAIL side to start, or None: nothing can be needed.
        Ties go to the order.
        """
        reach = 1.0  # the chance the search reads past the entries so far
        best: int | None = None
        chance = 0.0
        for offset, entry in enumerate(window):
            fails = self._fail_chance(ledger, entry)
            if branches is not None and head + offset not in branches and reach * fails > chance:
                best, chance = head + offset, reach * fails
            reach *= 1.0 - fails
        if order_open and reach > 0 and reach >= chance:
            return _ORDER
        return best

    def _fail_chance(self, ledger: Ledger, entry: _Entry) -> float:
        outcome = entry.outcome if entry.outcome is not None else ledger.peek(entry.key)
        if outcome is None:
            return self.fail_rate
        return 1.0 if outcome is Outcome.FAIL else 0.0

    def _draw(
        self, ledger: Ledger, window: deque[_Entry], running: dict[bytes, Pending], text: str, inherited: set[bytes],
    ) -> set[bytes]:
        """Put ``text`` in the window, started unless known or running; the inherited keys still waiting."""
        key = digest(text)
        if inherited and (key in inherited or not self._known(ledger, key, text)):
            self._cancel_prefetched(inherited - {key})  # this call's first test is not theirs
            inherited = set()
        candidate = ledger.admit(key, text)
        if candidate is None:
            window.append(_Entry(key, text, outcome=Outcome.UNRESOLVED))
        elif key in self._prefetched:
            running[key] = self._prefetched.pop(key)
            window.append(_Entry(key, text, running[key], tested=True))
        elif ledger.lookup(key) is not None or key in running:
            window.append(_Entry(key, text))
        else:
            assert self.backend is not None
            running[key] = self.backend.start(candidate)
            window.append(_Entry(key, text, running[key], tested=True))
        return inherited

    def _read_ended(self, window: deque[_Entry], running: dict[bytes, Pending]) -> None:
        """Take the verdicts of tests that ended, to know what the search needs next.

        They are recorded (cached, counted) only when read in order; until
        then their texts stay in ``running``, so that none is started again.
        """
        for entry in window:
            if entry.pending is not None and entry.outcome is None and _ended(entry.pending):
                verdict, waited = self._wait(entry.pending)
                entry.waited += waited
                entry.outcome = verdict.outcome
                entry.pending = running[entry.key] = Finished(verdict)

    def _read(self, ledger: Ledger, entry: _Entry, running: dict[bytes, Pending]) -> Outcome:
        """The outcome of the window's first entry, waiting for its test if it runs; recorded."""
        if entry.pending is not None:
            verdict, seconds = self._wait(entry.pending)
            running.pop(entry.key, None)
            return self._record(ledger, entry.key, entry.text, verdict, entry.waited + seconds)
        if entry.outcome is not None:  # it does not parse
            return entry.outcome
        if entry.key in running:  # the same text is running earlier in the window
            verdict, seconds = self._wait(running.pop(entry.key))
            self._record(ledger, entry.key, entry.text, verdict, seconds)
        return ledger.hit(entry.key)

    def _deeper(self, ledger: Ledger, ahead: int) -> bool:
        """Whether to start a candidate with ``ahead`` started before it, when a test that
        ended early left its slot free (more than ``jobs`` candidates ahead).

        Only while the oracle is what astreduce mostly waits for, and for
        tests that are long against what starting one costs (a command's
        test, a warm pytest test: tens to hundreds of ms): the free core
        would idle otherwise, so even a candidate unlikely to be needed costs
        nothing. Under the exec oracle astreduce's own work (rendering,
        forking) is the limit at ``-j 2``: deeper starts, mostly cancelled,
        made stdlib_argparse 20% slower (3 ms waited a test) and
        stdlib_email 12% (13 ms a test, though 70% of its time is waited
        for them); pint through warm pytest (80 ms a test, 83% of its time)
        makes 6% more tests with them.
        """
        if ahead >= self.jobs * _AHEAD or not self._reads:
            return False
        elapsed = time.monotonic() - self._began
        return ledger.oracle_seconds >= 0.6 * elapsed and self._waited / self._reads >= _LONG_TEST

    def _busy(self, running: dict[bytes, Pending]) -> int:
        """Tests still running (one that ended but whose outcome is not yet read holds no slot)."""
        return sum(1 for p in (*running.values(), *self._prefetched.values()) if not _ended(p))

    def _another_ends_first(self, ledger: Ledger, head: Pending, running: dict[bytes, Pending]) -> bool:
        """Wait until ``head`` ends (False) or another running test does (True).

        Without this a test that ends before the one the search needs next
        keeps its slot (and a core) idle until that one ends. False at once
        when a pending cannot say when it ends (see :class:`Polling`): the
        caller then waits for ``head`` alone.
        """
        others = [p for p in (*running.values(), *self._prefetched.values()) if p is not head and not _ended(p)]
        if not others or not callable(getattr(head, "done", None)):
            return False
        failed = 0
        while not ledger.stopping():
            if _ended(head):
                return False
            if any(_ended(p) for p in others):
                return True
            # asked each time: a test's end may close a descriptor another shared (a warm pytest replaced)
            descriptors = _descriptors((head, *others))
            if descriptors is None:
                return False
            try:  # at most a fifth of a second: the head's own time limit is checked by done()
                select.select(descriptors, [], [], 0.2)
                failed = 0
            except (OSError, ValueError):  # closed since it was asked for: look at the tests again
                failed += 1
                if failed > 20:  # still closed: a test that says it runs on a closed descriptor; wait for the head alone
                    return False
                time.sleep(0.01)
        return False

    def _cancel_prefetched(self, keys: Iterable[bytes | None]) -> None:
        for key in list(keys):
            pending = self._prefetched.pop(key, None) if key is not None else None
            if pending is not None:
                pending.cancel()
                self.speculative += 1

    def _prefetch(self, ledger: Ledger, texts: Iterable[str], running: dict[bytes, Pending]) -> bytes | None:
        """Start the first of ``texts`` that needs a test ahead of its call; its key if started.

        Known texts (cached, or they do not parse) are passed over, as the
        search will pass over them, up to :data:`_PASSED_OVER` of them; one
        already running ends the look.
        """
        for text in itertools.islice(texts, _PASSED_OVER):
            key = digest(text)
            if key in self._prefetched or key in running:
                return None
            candidate = ledger.admit(key, text)
            if candidate is None or ledger.lookup(key) is not None:
                continue
            assert self.backend is not None
            self._prefetched[key] = self.backend.start(candidate)
            return key
        return None

    def _known(self, ledger: Ledger, key: bytes, text: str) -> bool:
        """Whether the outcome of ``text`` is known without a test: cached, or it does not parse."""
        return ledger.admit(key, text) is None or ledger.lookup(key) is not None


#: Candidates started ahead (running or ended, not yet read) at most, per job.
_AHEAD = 3

#: Seconds waited for a test, on average, from which deeper starts pay (:meth:`Scheduler._deeper`).
_LONG_TEST = 0.03

#: Known candidates passed over at most, looking for the first to start ahead.
_PASSED_OVER = 32

#: What :meth:`Scheduler._likeliest` returns for the next candidate in the search's order.
_ORDER = object()


@dataclass
class _Entry:
    """A candidate of the parallel window, in the search's order."""

    key: bytes
    text: str
    pending: Pending | None = None
    """Its own test (:class:`Finished` once its verdict was taken early), until it is read."""
    outcome: Outcome | None = None
    """Known before it is read: it does not parse, or its test ended."""
    tested: bool = False
    """Its own test was started (it counts as a candidate started ahead)."""
    waited: float = 0.0
    """The seconds waited while it was the next to read and another test ended first, and for its verdict when
    it was taken early (told to the ledger when it is read)."""


def _descriptors(pendings: Iterable[Pending]) -> list[int] | None:
    """The descriptors that become readable when one of ``pendings`` may have ended (None: one cannot say)."""
    descriptors: list[int] = []
    for pending in pendings:
        ready = getattr(pending, "ready_fds", None)
        fds = ready() if callable(ready) else None
        if fds is None:
            return None
        descriptors += fds
    return descriptors


def _ended(pending: Pending) -> bool:
    """Whether a test has ended, when its pending can tell without blocking (else: not yet)."""
    done = getattr(pending, "done", None)
    return bool(done()) if callable(done) else False
