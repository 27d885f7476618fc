"""DeltaDebugger: collecting the first call, reducing its arguments, errors."""

from __future__ import annotations

import gc
import sys
import types
from collections import namedtuple
from typing import Any

import pytest

from astreduce.dd import Outcome
from astreduce.debugger import DeltaDebugger
from astreduce.errors import (
    AstReduceError,
    DDPreconditionError,
    FailureNotReproducedError,
    NoCallError,
    NotFailingError,
)

# A 26-character random string with one "(" before one ")" (random.Random(2024)).
PARENTHESES_INPUT = "8(xMz0H,F+T1.BN;Q/jA7s,B0)"


def mystery(inp: str) -> None:
    """Fails when a "(" is followed later by a ")"."""
    i = inp.find("(")
    if i >= 0 and ")" in inp[i + 1 :]:
        raise ValueError("Invalid input")


def outcome_of(inp: str) -> Outcome:
    try:
        mystery(inp)
    except ValueError:
        return Outcome.FAIL
    return Outcome.PASS


def remove_html_markup(s: str) -> str:
    """A markup stripper with the literature's bug: a quote outside a tag opens a quote."""
    tag = quote = False
    out = ""
    for c in s:
        if c == "<" and not quote:
            tag = True
        elif c == ">" and not quote:
            tag = False
        elif c == '"' or (c == "'" and tag):
            quote = not quote
        elif not tag:
            out += c
    if "<" in out or ">" in out:
        raise AssertionError("markup in output")
    return out


# The example functions raise AssertionError explicitly: in this module pytest
# rewrites `assert` statements so that their messages show the operands, and
# a message that changes with the arguments makes every candidate UNRESOLVED.


def string_error(s1: str, s2: str) -> None:
    if s1 in s2:
        raise AssertionError("no substrings")


def no_duplicates(numbers: list[int]) -> None:
    if len(set(numbers)) != len(numbers):
        raise ValueError("duplicate")


# -- the literature's examples -------------------------------------------------


def test_parentheses_reduce_to_a_pair() -> None:
    with DeltaDebugger() as dd:
        mystery(PARENTHESES_INPUT)
    assert repr(dd) == "mystery(inp='()')"
    assert dd.min_args() == {"inp": "()"}
    assert dd.tests <= 24


def test_quote_before_angle_bracket_reduces_to_two_characters() -> None:
    with DeltaDebugger() as dd:
        remove_html_markup('"x > y"')
    assert dd.min_args() == {"s": '">'}
    assert repr(dd) == "remove_html_markup(s='\">')"


def test_two_arguments_both_reduce_to_empty() -> None:
    with DeltaDebugger() as dd:
        string_error("foo", "foobar")
    assert dd.min_args() == {"s1": "", "s2": ""}
    assert repr(dd) == "string_error(s1='', s2='')"


def test_list_argument_reduces_to_the_duplicate_pair() -> None:
    with DeltaDebugger() as dd:
        no_duplicates([8, 3, 1, 4, 5, 9, 2, 6, 5, 7])
    assert dd.min_args() == {"numbers": [5, 5]}
    assert repr(dd) == "no_duplicates(numbers=[5, 5])"


def test_max_args_is_one_maximal_passing() -> None:
    with DeltaDebugger() as dd:
        mystery(PARENTHESES_INPUT)
    passing = dd.max_args()["inp"]
    assert isinstance(passing, str)
    assert outcome_of(passing) is Outcome.PASS
    # Only one of the pair is left out, so adding back the one missing
    # element gives the full input, which fails: passing is 1-maximal.
    assert len(passing) == len(PARENTHESES_INPUT) - 1
    assert passing in (PARENTHESES_INPUT.replace("(", ""), PARENTHESES_INPUT.replace(")", ""))


def test_min_arg_diff_is_one_element_on_parentheses() -> None:
    with DeltaDebugger() as dd:
        mystery(PARENTHESES_INPUT)
    passing, failing, diff = dd.min_arg_diff()
    assert isinstance(passing["inp"], str) and isinstance(failing["inp"], str)
    assert outcome_of(passing["inp"]) is Outcome.PASS
    assert outcome_of(failing["inp"]) is Outcome.FAIL
    assert diff in ({"inp": "("}, {"inp": ")"})
    assert sorted(passing["inp"] + str(diff["inp"])) == sorted(failing["inp"])


def test_min_arg_diff_names_every_reducible_argument() -> None:
    with DeltaDebugger() as dd:
        picky("abxcd", 3, None, {"k": 1}, b"\x01\x00\x02", (8, 9, 10))
    passing, failing, diff = dd.min_arg_diff()
    assert diff.keys() == {"text", "data", "row"}
    assert sum(len(v) for v in diff.values() if isinstance(v, (str, bytes, tuple))) == 1
    assert passing["count"] == failing["count"] == 3


def test_maximising_needs_the_empty_arguments_not_to_fail() -> None:
    with DeltaDebugger() as dd:
        string_error("foo", "xfoox")  # string_error('', '') fails too
    with pytest.raises(DDPreconditionError, match="every reducible argument empty"):
        dd.max_args()
    with pytest.raises(DDPreconditionError, match=r"min_arg_diff\(\)"):
        dd.min_arg_diff()
    with pytest.raises(DDPreconditionError, match="empty input '' fails"):
        dd.dd("s1", dd.args(), mode="+")


# -- what is collected -----------------------------------------------------------


def helper(x: str) -> str:
    return x


def calls_helper(text: str) -> None:
    helper(text)
    mystery(text)


def test_accessors_return_the_collected_call() -> None:
    with DeltaDebugger() as dd:
        mystery("a(b)c")
    assert dd.function() is mystery
    assert dd.args() == {"inp": "a(b)c"}
    assert isinstance(dd.exception(), ValueError)
    assert str(dd.exception()) == "Invalid input"
    assert dd.tests == 0  # nothing runs before it is needed


def test_only_the_first_call_of_the_block_is_collected() -> None:
    with DeltaDebugger() as dd:
        calls_helper("a(b)c")  # calls helper and mystery inside: not collected
    assert dd.function() is calls_helper
    assert repr(dd) == "calls_helper(text='()')"


def test_a_later_call_that_fails_is_not_the_collected_one() -> None:
    with DeltaDebugger() as dd:
        helper("abc")
        mystery("a(b)c")
    assert dd.function() is helper
    with pytest.raises(FailureNotReproducedError):
        dd.min_args()


def test_a_call_in_an_argument_comes_first() -> None:
    with DeltaDebugger() as dd:
        mystery(helper("a(b)"))
    assert dd.function() is helper
    with pytest.raises(FailureNotReproducedError, match=r"repeating helper\(x='a\(b\)'\)"):
        dd.min_args()


def test_garbage_collector_callbacks_are_not_collected() -> None:
    def on_collection(phase: str, info: dict[str, int]) -> None:
        pass

    gc.callbacks.append(on_collection)
    try:
        with DeltaDebugger() as dd:
            gc.collect()
            remove_html_markup('"x > y"')
    finally:
        gc.callbacks.remove(on_collection)
    assert dd.function() is remove_html_markup


def test_the_debuggers_own_calls_are_not_collected() -> None:
    with DeltaDebugger() as dd:
        other = DeltaDebugger(log=False)
        mystery("a(b)")
    assert dd.function() is mystery
    assert other.tests == 0


def test_the_profile_function_is_restored() -> None:
    assert sys.getprofile() is None
    with DeltaDebugger() as dd:
        mystery("()")
    assert sys.getprofile() is None
    events: list[str] = []

    def previous(frame: types.FrameType, event: str, arg: Any) -> None:
        events.append(event)

    sys.setprofile(previous)
    try:
        with DeltaDebugger() as dd:
            mystery("()")
        restored = sys.getprofile()
    finally:
        sys.setprofile(None)
    assert restored is previous
    assert dd.function() is mystery


def test_closures_sharing_code_are_told_apart() -> None:
    def make(bad: int) -> Any:
        def check(numbers: list[int]) -> None:
            if bad in numbers:
                raise KeyError(bad)

        return check

    checks = [make(i) for i in range(5)]
    with DeltaDebugger() as dd:
        checks[3]([0, 1, 2, 3, 4])
    assert dd.function() is checks[3]
    assert dd.min_args() == {"numbers": [3]}


def test_a_method_call_is_collected_with_self() -> None:
    class Parser:
        def parse(self, text: str) -> None:
            mystery(text)

    parser = Parser()
    with DeltaDebugger() as dd:
        parser.parse("x(y)z")
    assert dd.min_args()["text"] == "()"
    assert isinstance(dd.min_args()["self"], Parser)


def test_arguments_mutated_by_the_call_are_collected_as_they_were() -> None:
    def consume(items: list[int]) -> None:
        seven = 7 in items
        items.clear()
        if seven:
            raise ValueError("seven")

    numbers = [1, 7, 2]
    with DeltaDebugger() as dd:
        consume(numbers)
    assert numbers == []
    assert dd.args() == {"items": [1, 7, 2]}
    assert dd.min_args() == {"items": [7]}


def test_comprehension_frames_are_skipped() -> None:
    with DeltaDebugger() as dd:
        [remove_html_markup(s) for s in ["ok", '"x > y"']]
    assert dd.function() is remove_html_markup
    assert dd.args() == {"s": "ok"}


# -- which arguments are reduced ----------------------------------------------------


def picky(
    text: str, count: int, flag: None, table: dict[str, int], data: bytes, row: tuple[int, ...]
) -> None:
    if "x" in text and 0 in data and 9 in row and count == 3 and table["k"] == 1 and flag is None:
        raise RuntimeError("found")


def test_only_sequences_are_reduced() -> None:
    with DeltaDebugger() as dd:
        picky("abxcd", 3, None, {"k": 1, "j": 2}, b"\x01\x00\x02", (8, 9, 10))
    assert dd.min_args() == {
        "text": "x",
        "count": 3,
        "flag": None,
        "table": {"k": 1, "j": 2},
        "data": b"\x00",
        "row": (9,),
    }


Pair = namedtuple("Pair", "left right")


def named(pair: Pair, text: str) -> None:
    if pair.left == 1 and "!" in text:
        raise ValueError("bang")


def test_sequence_subclasses_are_left_alone() -> None:
    pair = Pair(1, 2)  # inside the block, Pair.__new__ would be the first call
    with DeltaDebugger() as dd:
        named(pair, "hey!")
    assert dd.min_args() == {"pair": Pair(1, 2), "text": "!"}


def varied(first: str, /, *rest: str, key: str = "", **options: int) -> None:
    if "a" in first and "b" in rest and "c" in key and options.get("n") == 1:
        raise LookupError("all there")


def test_positional_only_star_args_and_keywords() -> None:
    with DeltaDebugger() as dd:
        varied("xay", "q", "b", "r", key="ccc", n=1, m=2)
    assert dd.min_args() == {
        "first": "a",
        "rest": ("b",),
        "key": "c",
        "options": {"n": 1, "m": 2},
    }
    assert repr(dd) == "varied('a', 'b', key='c', n=1, m=2)"


# -- outcomes -------------------------------------------------------------------------


def parse(text: str) -> None:
    if not text.startswith("<"):
        raise SyntaxError("no tag")
    if "!" in text:
        raise ValueError(f"bang at {text.index('!')}")


def test_other_exceptions_and_other_messages_are_unresolved() -> None:
    with DeltaDebugger() as dd:
        parse("<abc!def")
    # Without the leading "<" the error is a SyntaxError: UNRESOLVED. The
    # message names the position, so the "!" must stay at index 4.
    assert dd.min_args() == {"text": "<abc!"}


def test_tests_counts_real_calls_cumulatively() -> None:
    calls: list[str] = []

    def counted(inp: str) -> None:
        calls.append(inp)
        mystery(inp)

    with DeltaDebugger() as dd:
        counted("xy(ab)z")
    assert dd.tests == 0 and len(calls) == 1
    dd.min_args()
    after_min = dd.tests
    assert after_min == len(calls) - 1  # the call in the block is not a test
    dd.min_args()
    repr(dd)
    assert dd.tests == after_min  # cached
    dd.max_args()
    assert dd.tests > after_min
    dd.min_arg_diff()
    assert dd.tests == len(calls) - 1
    assert len(set(calls[1:])) == len(calls[1:])  # no candidate is called twice


def test_log_prints_every_test(capsys: pytest.CaptureFixture[str]) -> None:
    with DeltaDebugger(log=True) as dd:
        mystery("x(y)")
    dd.min_args()
    err = capsys.readouterr().err.splitlines()
    tests = [line for line in err if line.startswith("Test #")]
    assert len(tests) == dd.tests
    assert err[0] == "Observed mystery(inp='x(y)') raising ValueError: Invalid input"
    assert tests[0] == "Test #1 mystery(inp='x(y)'): FAIL (ValueError: Invalid input)"
    assert [line.split(" ", 2)[1] for line in tests] == [f"#{i}" for i in range(1, dd.tests + 1)]
    assert "Test #2 mystery(inp=''): PASS" in tests
    assert err[-2:] == ["Minimized inp to '()'", "Minimized failing call to mystery(inp='()')"]


def test_log_shows_the_unresolved_exception(capsys: pytest.CaptureFixture[str]) -> None:
    with DeltaDebugger(log=True) as dd:
        parse("<a!")
    dd.min_args()
    err = capsys.readouterr().err
    assert ": UNRESOLVED (SyntaxError: no tag)" in err


def test_without_log_nothing_is_printed(capsys: pytest.CaptureFixture[str]) -> None:
    with DeltaDebugger() as dd:
        mystery("x(y)")
    dd.min_args()
    assert capsys.readouterr() == ("", "")


# -- errors ---------------------------------------------------------------------------


def test_errors_are_astreduce_errors() -> None:
    for error in (NoCallError, NotFailingError, FailureNotReproducedError):
        assert issubclass(error, AstReduceError)


def test_a_block_without_a_call_is_a_no_call_error() -> None:
    with pytest.raises(NoCallError, match="no Python function call"), DeltaDebugger():
        x = 1 + 1
    assert x == 2


def test_builtin_calls_are_not_collected() -> None:
    with pytest.raises(NoCallError), DeltaDebugger():
        len("abc")


def test_methods_need_a_collected_call() -> None:
    dd = DeltaDebugger()
    assert repr(dd) == "<DeltaDebugger: no failing call collected>"
    for method in (dd.min_args, dd.max_args, dd.min_arg_diff, dd.function, dd.args, dd.exception):
        with pytest.raises(NoCallError):
            method()


def test_a_call_that_raises_nothing_is_a_not_failing_error() -> None:
    expected = r"mystery\(inp='abc'\) raised no exception"
    with pytest.raises(NotFailingError, match=expected), DeltaDebugger():
        mystery("abc")


def test_an_error_before_any_call_is_re_raised() -> None:
    with pytest.raises(KeyError, match="early"), DeltaDebugger():
        raise KeyError("early")
    with pytest.raises(ZeroDivisionError), DeltaDebugger():
        1 / 0  # noqa: B018


def test_keyboard_interrupt_is_never_swallowed() -> None:
    def interrupted(text: str) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt), DeltaDebugger():
        interrupted("abc")


def test_a_failure_seen_only_once_is_not_reproduced() -> None:
    seen: list[str] = []

    def fails_first_time(text: str) -> None:
        seen.append(text)
        if len(seen) == 1:
            raise ValueError("first time")

    with DeltaDebugger() as dd:
        fails_first_time("abc")
    with pytest.raises(
        FailureNotReproducedError, match=r"raised no exception, not ValueError\('first time'\)"
    ):
        dd.min_args()
    with pytest.raises(FailureNotReproducedError):
        repr(dd)


def test_a_different_failure_names_both_exceptions() -> None:
    count = [0]

    def flaky(text: str) -> None:
        count[0] += 1
        raise ValueError(f"call {count[0]}")

    with DeltaDebugger() as dd:
        flaky("abc")
    with pytest.raises(FailureNotReproducedError) as info:
        dd.min_args()
    assert "ValueError('call 2')" in str(info.value)
    assert "ValueError('call 1')" in str(info.value)


def test_a_debugger_can_be_used_again() -> None:
    dd = DeltaDebugger()
    with dd:
        mystery("a(b)")
    assert dd.min_args() == {"inp": "()"}
    with dd:
        string_error("a", "ab")
    assert dd.min_args() == {"s1": "", "s2": ""}


def test_a_finalizer_the_collector_runs_in_the_block_is_not_collected() -> None:
    class Resource:
        def __del__(self) -> None:
            pass

    def make_cycle() -> None:
        first, second = Resource(), Resource()
        first.other, second.other = second, first  # type: ignore[attr-defined]

    make_cycle()  # garbage that only the collector frees, running __del__ from the block's frame
    with DeltaDebugger() as dd:
        gc.collect()
        remove_html_markup('"x > y"')
    assert dd.function() is remove_html_markup
