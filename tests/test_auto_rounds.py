"""auto's cheaper rounds: one sweep of singles per pass, stale deletions parked, layout-only twins
not retested, passes that took nothing asleep until a confirming round, no line joined by the token pass."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from functools import partial

from astreduce.search.schedule import row
from astreduce.oracles import Prepared, Verdict
from astreduce.run import Run
from astreduce.outcome import Outcome
from astreduce.search.greedy import Memory, apply_greedily, change_key
from astreduce.reduce.single import reduce_source
from astreduce.oracles.alike import CodeKey, code_key
from astreduce.search.session import Learnt, Session
from astreduce.search.strategies import Plan, StrategyRun, run_auto
from astreduce.search.unit_passes import counts_as_token, tokens_of
from astreduce.transforms import load_transforms
from astreduce.transforms.constants import ValueFromTrace
from test_hoisting import Contains

ITEMS = "abcx"


def _session(fails: object, text: str = ITEMS, **options: object) -> Session:
    def judge(candidate: str) -> Verdict:
        failed = fails(candidate)  # type: ignore[operator]
        return Verdict(Outcome.FAIL if failed else Outcome.PASS, Run("exception" if failed else "ok"))

    return Session(text, judge, **options)  # type: ignore[arg-type]


def _render(applied: frozenset[int]) -> str:
    return "".join(c for i, c in enumerate(ITEMS) if i not in applied)


def _cascading(text: str) -> bool:
    """FAILs while ``x`` stays; ``a`` may go only once ``c`` has gone (a use and its definition)."""
    return "x" in text and ("a" in text or "c" not in text)


def test_one_sweep_leaves_what_a_later_deletion_enables_to_the_next_round() -> None:
    repeated = _session(_cascading)
    once = _session(_cascading)
    assert apply_greedily(repeated, 4, _render, park="never") == {0, 1, 2}
    assert apply_greedily(once, 4, _render, park="never", repeat=False) == {1, 2}
    assert once.tests < repeated.tests
    # the next round, on the result, finds the rest
    rest = "".join(c for i, c in enumerate(ITEMS) if i not in {1, 2})
    assert apply_greedily(once, 2, lambda applied: "".join(c for i, c in enumerate(rest) if i not in applied), repeat=False) == {0}


def test_a_stale_single_is_parked_unless_stale_edits_are_retried() -> None:
    for retry, parked in ((False, True), (True, False)):
        tested: list[str] = []

        def fails(text: str, tested: list[str] = tested) -> bool:
            tested.append(text)
            return "b" in text and "x" in text

        session = _session(fails)
        memory = Memory(retry_stale=retry)
        memory.stale[change_key(ITEMS, _render(frozenset({0})))] = b""  # deleting "a" failed before
        assert apply_greedily(session, 4, _render, repeat=False, memory=memory) == {0, 2}
        # parked, "a" goes only with the others, at the end; retried, alone, first
        assert ("bcx" in tested) is not parked


def test_a_confirming_search_tests_again_only_the_deletions_whose_names_changed() -> None:
    # lines 0 and 1 are the opportunities; ``c(a)``, three lines below, is out of their change keys' context
    lines = ["a = 1\n", "b = 2\n", "d = 3\n", "e = 4\n", "f = 5\n", "c(a)\n"]

    def render_of(kept: list[str]) -> Callable[[frozenset[int]], str]:
        return lambda applied: "".join(line for i, line in enumerate(kept) if i not in applied)

    def fails(text: str) -> bool:  # ``b`` is the bug; ``a`` may go once ``c(a)`` has gone
        tested.append(text)
        return "b = 2" in text and ("c(a)" not in text or "a = 1" in text)

    tested: list[str] = []
    session = _session(fails, "".join(lines))
    memory = Memory()
    assert apply_greedily(session, 2, render_of(lines), repeat=False, memory=memory) == frozenset()  # both fail alone
    without_use = lines[:-1]
    for parking, retried in (("stale", False), ("unchanged", True)):
        tested.clear()
        assert apply_greedily(session, 2, render_of(without_use), park=parking, repeat=False, memory=memory) == (
            {0} if retried else frozenset()
        )
        # ``a`` lost its use (its count changed): a confirming search tries it alone; ``b``'s names did not change
        assert ("".join(without_use[1:]) in tested) is retried
        assert "".join([without_use[0], *without_use[2:]]) not in tested


def test_candidates_with_one_byte_code_are_tested_once() -> None:
    program = "def f(x):\n    return 1 / x\nf(0)\n"
    twins = ["def f(x):return 1 / x\nf(0)\n", "def f(x):\n    return (1 / x)  # the same\n\n\nf(0)\n"]
    different = "def f(x):\n    return 1 / x\nf(1)\n"

    def fails(text: str) -> bool:
        return "f(0)" in text

    key = CodeKey()
    alike = _session(
        fails, program, alike=True, prepare=lambda text, whole, keyed: Prepared(text, None, key(text)) if key(text) else None,
    )
    plain = _session(fails, program)
    for session in (alike, plain):
        for text in [*twins, different]:
            assert session.outcome(text) is (Outcome.PASS if text == different else Outcome.FAIL)
    assert alike.tests == 1  # the twins have the original's byte code
    assert plain.tests == 3
    assert code_key("def (") is None
    # constants of other types, and other names, are other programs
    keys = {code_key(t) for t in ("x = 1", "x = 1.0", "x = True", "y = 1", "x = (1,)", "x = -0.0", "x = 0.0")}
    assert len(keys) == 7


PROGRAM = """\
import os

def helper(values):
    total = 0
    for value in values:
        total = total + value * 2
    return total

def report(values, label="sum"):
    result = helper(values)
    message = label + ": " + str(result)
    if result > 10:
        print(message)
    return result

data = [1, 2, 3, 4]
report(data, "numbers")
"""


def _rounds(names: list[str]) -> list[list[str]]:
    rounds: list[list[str]] = []
    for name in names:
        if name == "delete statements, level 0" or not rounds:
            rounds.append([])
        rounds[-1].append(name)
    return rounds


def test_a_pass_that_took_nothing_sleeps_until_the_confirming_round() -> None:
    result = reduce_source(PROGRAM, Contains("value * 2"), format=False)
    assert result.text == "value * 2\n"
    first, second, *rest = _rounds([p.name for p in result.passes if not p.name.startswith("text:")])
    took = {p.name for p in result.passes[: len(first)] if p.tokens_after < p.tokens_before}
    idle = {name for name in first if name not in took and not name.startswith("delete")}
    assert "to-constant" in idle and "hoist-expression #2" in took
    assert not idle & set(second)  # asleep in a round that is not confirming
    assert "hoist-expression #2" in second
    assert "to-constant" in rest[-1]  # the last round confirms the fixpoint with every pass


def test_bytes_alone_start_no_new_round() -> None:
    # the string shortens (bytes), the tokens stay: one round, then the confirming one, and no third
    result = reduce_source("print('a long string')\n", Contains("print('"), format=False)
    assert result.text == "print('')\n"
    names = [p.name for p in result.passes if not p.name.startswith("text:")]
    assert names.index("shorten-string") < names.index("delete statements, level 0", 1)
    assert len(_rounds(names)) == 2


def test_the_token_pass_deletes_tokens_never_line_ends_blanks_or_comments() -> None:
    text = "if a:\n    b = 1  # note\n\nc()\n"
    deletable = [text[s:e].strip() for s, e in tokens_of(text) if counts_as_token(text[s:e])]
    assert deletable == ["if", "a", ":", "b", "=", "1", "c", "(", ")"]
    # the reduced program keeps its lines: no ``if a:b = 1`` from a deleted line end
    result = reduce_source(text, Contains("b = 1"), format=False)
    assert result.text == "b = 1\n"


def test_value_from_trace_is_confirmed_like_a_deletion() -> None:
    # a traced value may become the needed one through a change far away, as a definition may go
    assert row(ValueFromTrace.name).far_reaching


class ContainsAll(Contains):
    """FAIL iff the candidate compiles and contains every one of the texts."""

    def __init__(self, texts: tuple[str, ...]) -> None:
        super().__init__(texts[0])
        self.texts = texts

    def judge(self, text: str) -> Verdict:
        verdict = super().judge(text)
        if verdict.outcome is Outcome.FAIL and not all(t in text for t in self.texts):
            return Verdict(Outcome.PASS, verdict.run)
        return verdict


def test_a_run_of_auto_given_what_it_learnt_tests_again_only_what_changed() -> None:
    # a tree's file reduced again (its context changed) keeps its run of auto: its text at the fixpoint
    # is tested edit by edit in the deletion passes of its first round, and the other passes park their
    # stale singles, where a fresh run would test every edit again
    plan = Plan.of(load_transforms(), last_passes="never")
    learnt = StrategyRun(plan)
    needed = ("total = total + value * 2", "result = helper(values)", "message = label + ", "print(message)")
    judge = ContainsAll(needed).judge
    first = Session(PROGRAM, judge)
    run_auto(first, plan, learnt)
    fixpoint = first.best
    again, fresh = (Session(fixpoint, judge) for _ in range(2))
    learnt.again = True  # as a tree reduces a file again: its first round tests every deletion alone
    run_auto(again, plan, learnt)
    run_auto(fresh, plan)
    assert again.best == fresh.best == fixpoint
    assert 0 < again.tests < fresh.tests / 2, (again.tests, fresh.tests)
    # its first round's deletions test every one alone again, as a fresh run's do
    assert [(p.name, p.tests) for p in again.passes[:2]] == [(p.name, p.tests) for p in fresh.passes[:2]]
    assert again.passes[0].name == "delete statements, level 0" and again.passes[0].tests > 1
    # the passes that come once, last, were left out; alone, they rename
    assert not any(p.name == "rename" for p in (*first.passes, *again.passes))
    last = Session(fixpoint, judge)
    run_auto(last, replace(plan, last_passes="only"))
    assert [p.name for p in last.passes][:1] == ["rename"]


def test_rounds_given_one_at_a_time_end_where_the_rounds_run_at_once_end() -> None:
    # a tree gives each file one round of auto a visit (every file gets each level of passes before any
    # gets the next): resumed visit after visit, a run tests what one run to its fixpoint tests, in order
    plan = Plan.of(load_transforms(), last_passes="never")
    needed = ("total = total + value * 2", "result = helper(values)", "message = label + ", "print(message)")
    judge = ContainsAll(needed).judge
    whole = Session(PROGRAM, judge)
    run_auto(whole, plan)
    visits, resumed, run = 0, Session(PROGRAM, judge), StrategyRun(plan)
    while True:
        run_auto(resumed, replace(plan, rounds=1), run)
        visits += 1
        if run.settled:
            break
        assert not run.again
    assert resumed.best == whole.best != PROGRAM
    assert [(p.name, p.tests) for p in resumed.passes] == [(p.name, p.tests) for p in whole.passes]
    assert visits > 2  # a round that took something off, then the confirming one, at least
    # a settled run starts afresh: its next visit is a round that does not confirm (stale singles parked)
    again = Session(resumed.best, judge)
    run_auto(again, replace(plan, rounds=1), run)
    assert not run.settled and run.confirming  # it took nothing off; the next visit confirms


def test_a_session_given_what_an_earlier_one_learnt_tests_none_of_its_candidates_again() -> None:
    # a tree's file visited again while the rest of the tree is as it was: its candidates run as they ran
    plan = Plan.of(load_transforms(), last_passes="never")
    judge = ContainsAll(("result = helper(values)", "print(message)")).judge
    learnt = Learnt()
    first = Session(PROGRAM, judge, learnt=learnt)
    run_auto(first, replace(plan, rounds=1))
    assert first.tests > 0 and learnt.outcomes
    known = dict(learnt.outcomes)
    tested: list[str] = []

    def counting(text: str) -> Verdict:
        tested.append(text)
        return judge(text)

    again = Session(PROGRAM, counting, learnt=learnt)
    run_auto(again, replace(plan, rounds=1))
    assert again.best == first.best and again.tests == len(tested) == 0
    assert again.cache_hits >= first.tests and learnt.outcomes == known
    # without it, the same round tests them all again
    fresh = Session(PROGRAM, counting)
    run_auto(fresh, replace(plan, rounds=1))
    assert fresh.best == first.best and fresh.tests == first.tests == len(tested)


def test_a_use_gone_in_another_file_makes_a_failed_deletion_new() -> None:
    # ``a = 1`` failed alone while another file used ``a``; once that use is gone (the names counted
    # outside the text change), a confirming search tries it alone again, and only then
    lines = ["a = 1\n", "b = 2\n"]

    def render(applied: frozenset[int]) -> str:
        return "".join(line for i, line in enumerate(lines) if i not in applied)

    used_elsewhere = True

    def fails(text: str) -> bool:
        return "b = 2" in text and ("a = 1" in text or not used_elsewhere)

    memory = Memory(outside=Counter({"a": 1}))
    assert apply_greedily(_session(fails, "".join(lines)), 2, render, repeat=False, memory=memory) == frozenset()
    used_elsewhere = False  # a session of its own: in a tree, each candidate is the whole tree, another text
    confirming = partial(apply_greedily, park="unchanged", repeat=False, memory=memory)
    assert confirming(_session(fails, "".join(lines)), 2, render) == frozenset()  # the names counted as they were
    memory.outside = Counter()
    assert confirming(_session(fails, "".join(lines)), 2, render) == {0}
