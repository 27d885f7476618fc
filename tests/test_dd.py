"""ddmin and general dd on toy oracles with known results, over every option."""

from __future__ import annotations

import random
import string
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from astreduce.dd import MODES, DDResult, Outcome, Progress, dd, ddmin
from astreduce.errors import AstReduceError, DDPreconditionError

Test = Callable[[Sequence[Any]], Outcome]
Batch = Callable[[list[Sequence[Any]]], Iterator[Outcome]]

# -- inputs and oracles --------------------------------------------------------

ALPHABET = "abcdefghijklmnopqrstuvwxyz"


def as_kind(text: str, kind: type) -> Sequence[Any]:
    """``text`` as a str, bytes, list of one-character strings, or tuple of them."""
    if kind is str:
        return text
    if kind is bytes:
        return text.encode()
    result: Sequence[Any] = kind(text)
    return result


def values(candidate: Sequence[Any]) -> list[str]:
    """The elements of a candidate of any kind, as one-character strings."""
    if isinstance(candidate, bytes):
        return [chr(b) for b in candidate]
    return list(candidate)


def fails_with_all(required: str) -> Test:
    """FAIL iff the candidate contains every character of ``required``."""

    def test(candidate: Sequence[Any]) -> Outcome:
        return Outcome.FAIL if set(required) <= set(values(candidate)) else Outcome.PASS

    return test


def fails_on_ordered_pair(first: str, second: str) -> Test:
    """FAIL iff ``first`` occurs and ``second`` occurs somewhere after it."""

    def test(candidate: Sequence[Any]) -> Outcome:
        text = "".join(values(candidate))
        i = text.find(first)
        return Outcome.FAIL if i >= 0 and second in text[i + 1 :] else Outcome.PASS

    return test


def recording(test: Test, seen: list[tuple[str, ...]]) -> Test:
    """``test``, appending every candidate it is asked about to ``seen``."""

    def recorded(candidate: Sequence[Any]) -> Outcome:
        seen.append(tuple(values(candidate)))
        return test(candidate)

    return recorded


def lazy_batch(test: Test) -> Batch:
    """A batch function that evaluates candidates one by one as they are read."""

    def batch(candidates: list[Sequence[Any]]) -> Iterator[Outcome]:
        return (test(c) for c in candidates)

    return batch


def eager_batch(test: Test) -> Batch:
    """A batch function that evaluates ALL candidates before yielding any outcome,
    as a parallel executor running the whole batch speculatively would."""

    def batch(candidates: list[Sequence[Any]]) -> Iterator[Outcome]:
        return iter([test(c) for c in candidates])

    return batch


BATCHES: dict[str, Callable[[Test], Batch] | None] = {
    "sequential": None,
    "lazy-batch": lazy_batch,
    "eager-batch": eager_batch,
}
KINDS = [str, bytes, list, tuple]


def run_dd(
    elements: Sequence[Any], test: Test, mode: str, *, cache: bool, batch: str
) -> DDResult[Any]:
    make_batch = BATCHES[batch]
    return dd(
        elements,
        test,
        mode,  # type: ignore[arg-type]
        cache=cache,
        batch=None if make_batch is None else make_batch(test),
    )


OPTIONS = [
    pytest.param(cache, batch, id=f"{'cache' if cache else 'no-cache'}-{batch}")
    for cache in (True, False)
    for batch in BATCHES
]

# -- known results over all options, kinds and modes ---------------------------


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
@pytest.mark.parametrize(("cache", "batch"), OPTIONS)
def test_minimise_finds_exactly_the_required_elements(kind: type, cache: bool, batch: str) -> None:
    elements = as_kind(ALPHABET, kind)
    result = run_dd(elements, fails_with_all("dqx"), "-", cache=cache, batch=batch)
    assert result.failing == as_kind("dqx", kind)
    assert type(result.failing) is kind
    assert result.passing == as_kind("", kind)
    assert result.difference == result.failing


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
@pytest.mark.parametrize(("cache", "batch"), OPTIONS)
def test_maximise_leaves_out_one_required_element(kind: type, cache: bool, batch: str) -> None:
    elements = as_kind(ALPHABET, kind)
    test = fails_with_all("dqx")
    result = run_dd(elements, test, "+", cache=cache, batch=batch)
    assert type(result.passing) is kind
    assert result.failing == elements
    missing = set(ALPHABET) - set(values(result.passing))
    assert len(missing) == 1 and missing <= set("dqx")
    assert test(result.passing) is Outcome.PASS


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
@pytest.mark.parametrize(("cache", "batch"), OPTIONS)
def test_isolate_finds_a_one_element_difference(kind: type, cache: bool, batch: str) -> None:
    elements = as_kind(ALPHABET, kind)
    test = fails_with_all("dqx")
    result = run_dd(elements, test, "+-", cache=cache, batch=batch)
    for part in (result.passing, result.failing, result.difference):
        assert type(part) is kind
    assert test(result.passing) is Outcome.PASS
    assert test(result.failing) is Outcome.FAIL
    assert set(values(result.passing)) <= set(values(result.failing))
    assert len(result.difference) == 1
    assert set(values(result.difference)) <= set("dqx")
    assert sorted(values(result.passing) + values(result.difference)) == sorted(
        values(result.failing)
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("cache", "batch"), OPTIONS)
def test_batches_give_the_sequential_result(mode: str, cache: bool, batch: str) -> None:
    rng = random.Random(7)
    text = "".join(rng.choice(string.ascii_lowercase + "  ") for _ in range(60))
    text = text[:20] + "(" + text[20:45] + ")" + text[45:]
    test = fails_on_ordered_pair("(", ")")
    expected = run_dd(text, test, mode, cache=cache, batch="sequential")
    result = run_dd(text, test, mode, cache=cache, batch=batch)
    assert (result.passing, result.failing, result.difference) == (
        expected.passing,
        expected.failing,
        expected.difference,
    )
    if batch == "lazy-batch":
        assert (result.tests, result.cache_hits) == (expected.tests, expected.cache_hits)


def test_eager_batch_sees_candidates_in_dd_order() -> None:
    batches: list[list[str]] = []
    test = fails_with_all("dq")

    def batch(candidates: list[Sequence[Any]]) -> Iterator[Outcome]:
        batches.append([str(c) for c in candidates])
        return iter([test(c) for c in candidates])

    assert ddmin(ALPHABET, test, batch=batch) == "dq"
    assert batches[0] == [ALPHABET]  # the initial check of the full input
    assert any(len(b) > 1 for b in batches)  # later rounds arrive as real batches


@pytest.mark.parametrize(("cache", "batch"), OPTIONS)
def test_unresolved_counts_as_not_failing(cache: bool, batch: str) -> None:
    # Like a program that does not compile without its header line "a".
    def test(candidate: Sequence[Any]) -> Outcome:
        if "a" not in candidate:
            return Outcome.UNRESOLVED
        return fails_with_all("ky")(candidate)

    result = run_dd(ALPHABET, test, "-", cache=cache, batch=batch)
    assert result.failing == "aky"


# -- the literature's examples -------------------------------------------------


def random_string_with_parentheses(seed: int) -> str:
    rng = random.Random(seed)
    chars = [rng.choice(string.ascii_letters + string.digits + " +-*/.,;") for _ in range(24)]
    first, second = sorted(rng.sample(range(25), 2))
    chars.insert(first, "(")
    chars.insert(second + 1, ")")
    return "".join(chars)


def test_parentheses_reduce_to_a_pair_in_at_most_24_tests() -> None:
    text = random_string_with_parentheses(seed=2024)
    assert len(text) == 26 and text.count("(") == 1 and text.count(")") == 1
    calls: list[str] = []
    test = fails_on_ordered_pair("(", ")")

    def counted(candidate: Sequence[Any]) -> Outcome:
        calls.append(str(candidate))
        return test(candidate)

    result = dd(text, counted)
    assert result.failing == "()"
    assert result.tests <= 24  # includes the initial check of the full input
    assert result.tests == len(calls)


@pytest.mark.parametrize("seed", range(20))
def test_parentheses_reduce_to_a_pair_for_any_string(seed: int) -> None:
    # About 20 tests on average; the worst of 200 seeds needs 25, so only
    # the seeded example above holds the literature's bound of 24.
    result = dd(random_string_with_parentheses(seed), fails_on_ordered_pair("(", ")"))
    assert result.failing == "()"
    assert result.tests <= 26


def test_quote_before_angle_bracket_reduces_to_two_characters() -> None:
    assert ddmin('"x > y"', fails_on_ordered_pair('"', ">")) == '">'
    assert ddmin('<a href="x" title="y">z</a>', fails_on_ordered_pair('"', ">")) == '">'


def test_list_of_numbers_reduces_to_the_failing_pair() -> None:
    def test(numbers: Sequence[int]) -> Outcome:
        # "fails when a 13 appears before a 42"
        if 13 in numbers and 42 in numbers[list(numbers).index(13) :]:
            return Outcome.FAIL
        return Outcome.PASS

    numbers = list(range(100)) + [13, 7, 42]
    assert ddmin(numbers, test) == [13, 42]
    assert ddmin(tuple(numbers), test) == (13, 42)


# -- preconditions ---------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_full_input_passing_is_a_precondition_error(mode: str) -> None:
    with pytest.raises(DDPreconditionError, match="full input does not fail"):
        dd("abc", fails_with_all("z"), mode)  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ["+", "+-"])
def test_empty_input_failing_is_a_precondition_error_when_maximising(mode: str) -> None:
    with pytest.raises(DDPreconditionError, match="empty input must pass"):
        dd("abc", lambda c: Outcome.FAIL, mode)  # type: ignore[arg-type]


def test_precondition_error_is_an_astreduce_error() -> None:
    assert issubclass(DDPreconditionError, AstReduceError)


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_empty_input_failing_is_fine_when_minimising(kind: type) -> None:
    assert ddmin(as_kind("abc", kind), lambda c: Outcome.FAIL) == as_kind("", kind)
    assert ddmin(as_kind("", kind), lambda c: Outcome.FAIL) == as_kind("", kind)


def test_unknown_mode_is_rejected() -> None:
    with pytest.raises(ValueError, match="mode must be one of"):
        dd("abc", fails_with_all("a"), "*")  # type: ignore[arg-type]


def test_a_test_function_must_return_an_outcome_or_a_bool() -> None:
    with pytest.raises(TypeError, match="not an Outcome or a bool"):
        ddmin("abc", lambda c: "yes")  # type: ignore[arg-type,return-value]
    with pytest.raises(TypeError, match="not an Outcome or a bool"):
        ddmin("abc", lambda c: 1)  # type: ignore[arg-type,return-value]


# -- counters, cache and progress -----------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_cache_means_no_configuration_is_tested_twice(mode: str, kind: type) -> None:
    seen: list[tuple[str, ...]] = []
    test = recording(fails_on_ordered_pair("(", ")"), seen)
    text = random_string_with_parentheses(seed=5)
    result = dd(as_kind(text, kind), test, mode)  # type: ignore[arg-type]
    assert len(seen) == len(set(seen))  # elements are distinct: values name configurations
    assert result.tests == len(seen)


def test_without_cache_configurations_repeat_and_hits_stay_zero() -> None:
    text = random_string_with_parentheses(seed=5)
    seen: list[tuple[str, ...]] = []
    result = dd(text, recording(fails_on_ordered_pair("(", ")"), seen), "+-", cache=False)
    cached = dd(text, fails_on_ordered_pair("(", ")"), "+-")
    assert result.cache_hits == 0
    assert result.tests == len(seen)
    assert len(set(seen)) < len(seen)  # the same configuration asked for again
    assert cached.cache_hits > 0
    assert cached.tests == len(set(seen))
    assert (result.passing, result.failing) == (cached.passing, cached.failing)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("cache", "batch"), OPTIONS)
def test_progress_reports_every_test(mode: str, cache: bool, batch: str) -> None:
    records: list[Progress] = []
    test = fails_on_ordered_pair("(", ")")
    make_batch = BATCHES[batch]
    result = dd(
        random_string_with_parentheses(seed=9),
        test,
        mode,  # type: ignore[arg-type]
        cache=cache,
        batch=None if make_batch is None else make_batch(test),
        progress=records.append,
    )
    assert all(isinstance(r, Progress) for r in records)
    assert [r.tests for r in records] == list(range(1, result.tests + 1))
    assert records[0].size == 26 and records[0].outcome is Outcome.FAIL
    best = [r.best_size for r in records]
    assert best == sorted(best, reverse=True)
    if mode == "+":  # c_fail stays the full input even when a smaller one fails
        assert best[-1] <= len(result.failing)
    else:
        assert best[-1] == len(result.failing)
    for r in records:
        if r.outcome is Outcome.FAIL:
            assert r.best_size <= r.size
    assert records[-1].cache_hits <= result.cache_hits
