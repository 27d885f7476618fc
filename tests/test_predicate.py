"""``reduce_source(text, interesting=f)``: a Python predicate as the oracle, called in a sandboxed child."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from astreduce.errors import NotReproducibleError, UsageError
from astreduce.oracles.predicate import PredicateOracle
from astreduce.run.sandbox import Limits
from astreduce.outcome import Outcome
from astreduce.reduce.single import reduce_source

PROGRAM = '''\
import json


def load(text):
    return json.loads(text)


def total(values):
    result = 0
    for value in values:
        result += value
    return result


config = load('{"values": [1, 2, 3]}')
print(total(config["values"]))
raise ValueError("bad total")
'''

#: Calls of a predicate that counts them in a global, as the child sees them.
calls = 0


def has_raise(text: str) -> bool:
    """Interesting while the program still raises the ValueError and compiles."""
    compile(text, "candidate.py", "exec")
    return 'raise ValueError("bad total")' in text


def counting(text: str) -> bool:
    global calls
    calls += 1
    return calls == 1 and "raise" in text


def crashing(text: str) -> bool:
    if "total" not in text:
        os._exit(7)  # as a segfault would: the child dies without a word
    return "raise" in text


def hanging(text: str) -> bool:
    while "json" not in text:
        pass
    return True


@pytest.mark.parametrize(
    ("predicate", "outcome", "said"),
    [
        (lambda text: True, Outcome.FAIL, "interesting returned true"),
        (lambda text: "x" in text, Outcome.PASS, "interesting returned false"),
        (lambda text: [1], Outcome.FAIL, "interesting returned true"),
        (lambda text: int("x"), Outcome.UNRESOLVED, "ValueError(\"invalid literal for int() with base 10: 'x'\")"),
        (lambda text: os._exit(0), Outcome.UNRESOLVED, "crash"),
    ],
    ids=["true", "false", "truthy", "raises", "exits"],
)
def test_the_predicate_decides_the_outcome(predicate: object, outcome: Outcome, said: str) -> None:
    oracle = PredicateOracle(predicate)  # type: ignore[arg-type]  # lambdas of every kind
    verdict = oracle.judge("print(1)\n")
    assert verdict.outcome is outcome
    assert said in verdict.run.describe() + verdict.run.detail


def test_a_hang_is_unresolved_after_the_timeout() -> None:
    oracle = PredicateOracle(hanging, timeout=0.5)
    started = time.monotonic()
    verdict = oracle.judge("x = 1\n")
    assert verdict.outcome is Outcome.UNRESOLVED
    assert verdict.run.ending == "timeout"
    assert time.monotonic() - started < 30  # it ended: the child was killed, not waited for


def test_the_predicate_runs_in_a_child_that_cannot_change_astreduce(tmp_path: Path) -> None:
    here = os.getcwd()

    def meddling(text: str) -> bool:
        os.chdir(tmp_path)
        os.environ["ASTREDUCE_MEDDLED"] = "1"
        try:
            (tmp_path / "seen").write_text(os.getcwd())
        except OSError:  # confined: its own folder only
            pass
        return True

    assert PredicateOracle(meddling).judge("pass\n").outcome is Outcome.FAIL
    assert os.getcwd() == here
    assert "ASTREDUCE_MEDDLED" not in os.environ
    assert not (tmp_path / "seen").exists()  # confined to its own folder
    assert PredicateOracle(meddling, limits=Limits(confine=False)).judge("pass\n").outcome is Outcome.FAIL
    assert (tmp_path / "seen").read_text() == str(tmp_path)  # unconfined, what it writes stays: --no-confine says so


def test_reduce_source_with_a_predicate_keeps_what_it_asks_for() -> None:
    result = reduce_source(PROGRAM, interesting=has_raise)
    assert has_raise(result.text)
    assert result.text.strip() == 'raise ValueError("bad total")'
    assert result.verified
    assert 0 < result.tests < 200


def test_a_predicate_that_crashes_or_counts_leaves_the_reduction_alone() -> None:
    result = reduce_source(PROGRAM, interesting=crashing, strategy="lines")
    assert "total" in result.text and "raise" in result.text
    # every call ran in a fresh child: the count never went past 1 here or there
    assert reduce_source(PROGRAM, interesting=counting, strategy="lines").verified
    assert calls == 0


@pytest.mark.parametrize(
    ("predicate", "message"),
    [
        (lambda text: False, "input does not reproduce: interesting(input) returned false"),
        (lambda text: 1 / 0, "input does not reproduce: interesting(input) raised ZeroDivisionError('division by zero')"),
    ],
    ids=["false", "raises"],
)
def test_an_input_the_predicate_rejects_does_not_reproduce(predicate: object, message: str) -> None:
    with pytest.raises(NotReproducibleError) as raised:
        reduce_source(PROGRAM, interesting=predicate)  # type: ignore[arg-type]  # lambdas of every kind
    assert str(raised.value) == message


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"interesting": "raise"}, "interesting must be a function of the candidate's text, not str"),
        ({"interesting": has_raise, "expect": "ValueError"}, "interesting is an oracle of its own"),
        ({"interesting": has_raise, "python": "3.12"}, "interesting is an oracle of its own"),
    ],
    ids=["not-callable", "with-expect", "with-python"],
)
def test_a_predicate_goes_alone(keywords: dict[str, object], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        reduce_source(PROGRAM, **keywords)  # type: ignore[arg-type]  # wrong on purpose
