"""auto's cheaper rounds: one sweep of singles per pass, stale deletions parked, layout-only twins not retested."""

from __future__ import annotations

from astreduce.oracles import Run, Verdict
from astreduce.outcome import Outcome
from astreduce.search.greedy import apply_greedily, change_key
from astreduce.search.session import Session, syntax_tree_key

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
    assert apply_greedily(repeated, 4, _render, park=False) == {0, 1, 2}
    assert apply_greedily(once, 4, _render, park=False, repeat=False) == {1, 2}
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

        session = _session(fails, retry_stale=retry)
        session.stale.add(change_key(ITEMS, _render(frozenset({0}))))  # deleting "a" failed before
        assert apply_greedily(session, 4, _render, repeat=False) == {0, 2}
        # parked, "a" goes only with the others, at the end; retried, alone, first
        assert ("bcx" in tested) is not parked


def test_candidates_with_one_syntax_tree_are_tested_once() -> None:
    program = "def f(x):\n    return 1 / x\nf(0)\n"
    twins = ["def f(x):return 1 / x\nf(0)\n", "def f(x):\n    return 1 / x  # the same\n\n\nf(0)\n"]
    different = "def f(x):\n    return 1 / x\nf(1)\n"

    def fails(text: str) -> bool:
        return "f(0)" in text

    alike = _session(fails, program, alike=syntax_tree_key)
    plain = _session(fails, program)
    for session in (alike, plain):
        for text in [*twins, different]:
            assert session.outcome(text) is (Outcome.PASS if text == different else Outcome.FAIL)
    assert alike.tests == 1  # the twins have the original's tree
    assert plain.tests == 3
    assert syntax_tree_key("def (") is None
