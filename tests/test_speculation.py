"""Parallel tests (``-j``): speculation never changes the result, and it pays.

The oracle here runs nothing: each test "takes" one unit of a simulated
clock from its start, so the makespan of a run with N slots is exact and
repeatable (a real machine's timings are for ``bench/bench_parallel.py``).
"""

from __future__ import annotations

import os
import sys
import zlib
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from astreduce import reduce_source
from astreduce.oracles import Verdict
from astreduce.run import Run
from astreduce.outcome import Outcome


# reduce_source raises the limit for deep input; raised once here, hypothesis sees no change
sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))


class _Clock:
    now = 0.0


class _Pending:
    def __init__(self, oracle: "Needles", text: str) -> None:
        self.oracle, self.text, self.state = oracle, text, "running"
        self.ends = oracle.clock.now + 1
        if oracle.ended_at_once is not None:
            self.done = lambda: oracle.ended_at_once(text)  # type: ignore[method-assign]  # a pending that can tell

    def wait(self) -> Verdict:
        assert self.state == "running", f"waited on a {self.state} test"
        self.oracle.clock.now = max(self.oracle.clock.now, self.ends)
        self.state = "waited"
        return self.oracle.judge(self.text)

    def cancel(self) -> None:
        if self.state == "running":
            self.state = "cancelled"


class Needles:
    """FAIL when every needle is in the candidate; starts are recorded against a simulated clock."""

    def __init__(self, *needles: str, ended_at_once: Callable[[str], bool] | None = None) -> None:
        self.needles = needles
        self.clock = _Clock()
        self.started: list[_Pending] = []
        self.ended_at_once = ended_at_once
        """Which tests say they ended as soon as they start (None: pendings cannot tell)."""

    @property
    def identity(self) -> str:
        return "needles|" + "|".join(self.needles)

    def judge(self, text: str) -> Verdict:
        if all(n in text for n in self.needles):
            return Verdict(Outcome.FAIL, Run("exception", "Found", "needle"))
        return Verdict(Outcome.PASS, Run("ok"))

    def start(self, text: str) -> _Pending:
        pending = _Pending(self, text)
        self.started.append(pending)
        return pending


def _program(count: int) -> str:
    return "".join(f"value_{i} = helper({i}, [{i}, {i + 1}])\n" for i in range(count))


def _reduce(
    text: str, needles: list[str], jobs: int, strategy: str = "auto", ended_at_once: Callable[[str], bool] | None = None
) -> tuple[str, int, Needles, float]:
    oracle = Needles(*needles, ended_at_once=ended_at_once)
    result = reduce_source(text, oracle, strategy=strategy, jobs=jobs, format=False)
    return result.text, result.tests, oracle, oracle.clock.now


@settings(max_examples=25, deadline=None)
@given(
    count=st.integers(4, 24),
    picks=st.lists(st.integers(0, 23), min_size=1, max_size=4),
    strategy=st.sampled_from(["auto", "lines", "tokens"]),
    quick=st.none() | st.integers(0, 6),
)
def test_every_jobs_gives_the_same_output_and_tests(count: int, picks: list[int], strategy: str, quick: int | None) -> None:
    """With ``quick``, tests of some texts say they ended at once, out of the search's order: their
    verdicts are taken early, to choose what to start next, but recorded only in order."""
    needles = sorted({f"value_{p % count} " for p in picks})
    text = _program(count)
    ended_at_once = None if quick is None else (lambda candidate: zlib.crc32(candidate.encode()) % 7 <= quick)
    sequential = _reduce(text, needles, 1, strategy)
    for jobs in (2, 3):
        parallel = _reduce(text, needles, jobs, strategy, ended_at_once)
        assert parallel[:2] == sequential[:2]
        states = [p.state for p in parallel[2].started]
        assert "running" not in states, "a test outlived the reduction"
        # a pending is waited for at most once (_Pending.wait); one that ended early may be waited
        # for and then not needed, when a FAIL before it decides
        assert states.count("waited") >= parallel[1], "every test counted was waited for"
        if quick is None:
            assert states.count("waited") == parallel[1]


def test_two_slots_keep_both_busy_on_both_sides_of_the_search() -> None:
    """Speculating only on the PASS side (the next candidate in order) gave 1.39x here: each FAIL,
    and each pass's end, left a slot idle. Starting what follows a FAIL, and the next pass's first
    candidate, makes it 1.56x of the 2x possible."""
    text = _program(64)
    _, tests, _, _ = _reduce(text, ["value_7 ", "value_40 "], 1)
    _, parallel_tests, oracle, makespan = _reduce(text, ["value_7 ", "value_40 "], 2)
    assert parallel_tests == tests
    assert tests / makespan >= 1.5, f"{tests} tests in {makespan} units"
    assert len(oracle.started) <= 1.35 * tests, "too many wasted starts"


class _TimedPending:
    """A test that ends after ``seconds`` of real time, seen through a pipe, as a forked child's report is."""

    def __init__(self, text: str, seconds: float, log: list[str], fails: frozenset[str] = frozenset()) -> None:
        import os
        import threading

        self.text = text
        self.outcome = Outcome.FAIL if text in fails else Outcome.PASS
        self.read_fd, write_fd = os.pipe()
        log.append(f"start {text}")
        self.log = log

        def finish() -> None:
            os.write(write_fd, b"x")
            os.close(write_fd)

        self.timer = threading.Timer(seconds, finish)
        self.timer.start()

    def done(self) -> bool:
        import select

        return bool(select.select([self.read_fd], [], [], 0)[0])

    def ready_fds(self) -> list[int]:
        return [] if self.done() else [self.read_fd]

    def wait(self) -> Verdict:
        import select

        select.select([self.read_fd], [], [])
        self.log.append(f"end {self.text}")
        return Verdict(self.outcome, Run("ok"))

    def cancel(self) -> None:
        self.timer.cancel()


def test_a_slot_freed_by_a_later_test_takes_the_next_candidate_at_once() -> None:
    # the first candidate takes 0.6 s, the others 0.01 s: with two slots, the
    # second slot goes through several of them while the first still runs
    from astreduce.search.session import Session

    log: list[str] = []
    session = Session(
        "original",
        judge=lambda text: Verdict(Outcome.PASS, Run("ok")),
        start=lambda text: _TimedPending(text, 0.6 if text == "c0" else 0.3 if text[0] == "w" else 0.01, log),
        jobs=2,
    )
    # starting deeper pays only when astreduce mostly waits for the oracle: it has, so far
    assert list(session.outcomes(["w0", "w1"])) == [Outcome.PASS] * 2
    log.clear()
    outcomes = list(session.outcomes(f"c{i}" for i in range(8)))
    assert outcomes == [Outcome.PASS] * 8
    started_before_head_ended = log.index("end c0")
    assert log[:started_before_head_ended].count("start c0") == 1
    assert sum(1 for entry in log[:started_before_head_ended] if entry.startswith("start")) >= 4, log


def test_the_time_a_later_test_s_end_interrupts_counts_as_waiting_for_the_oracle() -> None:
    # c0 takes 1 s; beside it the other slot goes through c1, c2, ... (0.2 s each): the search waits for either
    # of two tests to end, again and again. All of that time is waited for the oracle, which tells whether
    # starting deeper pays (pint through warm pytest: 60 % of the time was counted, and deeper starts were held
    # back; 83 % now). Here half of it was counted.
    import time

    from astreduce.search.session import Session

    log: list[str] = []
    session = Session(
        "original", judge=lambda text: Verdict(Outcome.PASS, Run("ok")),
        start=lambda text: _TimedPending(text, 1.0 if text == "c0" else 0.2, log), jobs=2,
    )
    assert list(session.outcomes(["w0", "w1"])) == [Outcome.PASS] * 2  # the oracle's share of the time is high
    before, began = session.oracle_seconds, time.monotonic()
    assert list(session.outcomes(f"c{i}" for i in range(8))) == [Outcome.PASS] * 8
    assert session.oracle_seconds - before >= 0.9 * (time.monotonic() - began), log


def test_a_text_whose_test_ended_early_is_not_started_again_before_it_is_read() -> None:
    # "x1" ends at once and its verdict is taken early; the same text drawn again
    # before it is read in order waits for that verdict instead of a second test
    from astreduce.search.session import Session

    oracle = Needles("needle", ended_at_once=lambda text: text == "x1")
    session = Session("original needle", judge=oracle.judge, start=oracle.start, jobs=3)
    assert list(session.outcomes(["x1", "x2", "x1", "x3"])) == [Outcome.PASS] * 4
    assert [p.text for p in oracle.started] == ["x1", "x2", "x3"]
    assert (session.tests, session.cache_hits) == (3, 1)


def test_a_fail_that_ended_early_steers_the_free_slot_to_its_fail_side() -> None:
    # c0 takes 0.6 s; c1 FAILs at once: the search needs either c0's FAIL side
    # or c1's, never c2, so the free slot starts c1's FAIL side
    from astreduce.search.session import Session

    log: list[str] = []
    session = Session(
        "original",
        judge=lambda text: Verdict(Outcome.PASS, Run("ok")),
        start=lambda text: _TimedPending(text, 0.6 if text == "c0" else 0.3 if text[0] == "w" else 0.01, log, frozenset({"c1"})),
        jobs=2,
    )
    assert list(session.outcomes(["w0", "w1"])) == [Outcome.PASS] * 2  # the oracle's share of the time is high
    log.clear()
    try:
        assert session.first_failing([f"c{i}" for i in range(4)], lambda index: [f"after c{index}"]) == 1
    finally:
        session.close()
    assert "start after c1" in log[: log.index("end c0")], log
    assert "start c2" not in log, log


class _Book:
    """The least a :class:`~astreduce.search.scheduler.Ledger` needs: a dict and two counters."""

    def __init__(self) -> None:
        self.oracle_seconds = 0.0
        self.cache: dict[bytes, Outcome] = {}
        self.tests = self.hits = 0

    def peek(self, key: bytes) -> Outcome | None:
        return self.cache.get(key)

    lookup = peek

    def admit(self, key: bytes, text: str) -> str | None:
        return text

    def record(self, key: bytes, text: str, outcome: Outcome, seconds: float, verdict: object = None) -> Outcome:
        self.oracle_seconds += seconds
        self.tests += 1
        self.cache[key] = outcome
        return outcome

    def hit(self, key: bytes) -> Outcome:
        self.hits += 1
        return self.cache[key]

    def stopping(self) -> bool:
        return False


def test_any_backend_plugs_into_the_scheduler_and_outcomes_come_in_order() -> None:
    # a backend is anything with start(candidate) -> Pending: here not an oracle but a
    # simulated cluster whose tests say they ended at once, out of the search's order
    from astreduce.search.scheduler import Scheduler

    class Cluster:
        def __init__(self) -> None:
            self.oracle = Needles("needle", ended_at_once=lambda text: text.endswith("3"))

        def start(self, candidate: str) -> _Pending:
            return self.oracle.start(candidate)

    texts = ["a1", "a2", "needle a3", "a4", "a2", "needle a6"]
    expected = [Outcome.FAIL if "needle" in t else Outcome.PASS for t in texts]
    for jobs in (1, 2, 3):
        cluster, book = Cluster(), _Book()
        scheduler = Scheduler(cluster.oracle.judge, cluster, jobs)
        assert list(scheduler.outcomes(book, texts)) == expected
        scheduler.close()
        assert (book.tests, book.hits) == (5, 1)
        assert all(p.state != "running" for p in cluster.oracle.started)


class _ClosingPending:
    """A test whose end is seen on a pipe; its ``done`` may close another test's pipe, as a warm pytest that a
    test's end replaces closes the descriptor the tests running on it were waited on."""

    def __init__(self, ends_after: int, closes: _ClosingPending | None = None) -> None:
        self.read, self.write = os.pipe()
        self.asked = 0
        self.ends_after = ends_after
        self.closes = closes

    def done(self) -> bool:
        self.asked += 1
        if self.closes is not None and self.asked == 1:
            os.close(self.closes.read)
        return self.asked > self.ends_after

    def ready_fds(self) -> list[int]:
        return [self.read]

    def wait(self) -> Verdict:
        return Verdict(Outcome.PASS, Run("ok"))

    def cancel(self) -> None:
        pass


def test_a_descriptor_closed_while_tests_wait_is_no_crash() -> None:
    """At -j 2 a warm and a plain pytest test ran at once; when one ended it replaced the warm pytest, whose
    descriptor the other was waited on: select() raised EBADF and the reduction ended with a traceback."""
    from astreduce.search.scheduler import Scheduler

    class Ledger:
        oracle_seconds = 0.0

        def stopping(self) -> bool:
            return False

    head = _ClosingPending(ends_after=10**6)
    other = _ClosingPending(ends_after=3, closes=head)
    ledger = Ledger()
    scheduler = Scheduler(lambda text: Verdict(Outcome.PASS, Run("ok")), None, 2)
    assert scheduler._another_ends_first(ledger, head, {b"head": head, b"other": other}) is True  # type: ignore[arg-type]  # a toy ledger
    os.close(head.write)
    for fd in (other.read, other.write):
        os.close(fd)
