"""Properties of ddmin and dd for random predicates (hypothesis).

Inputs hold distinct elements, so a candidate's values name its
configuration and "c ∪ {δ}" can be rebuilt in the input's order.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from astreduce.dd import MODES, Outcome, dd, ddmin

Test = Callable[[Sequence[Any]], Outcome]
FAST = settings(max_examples=150, deadline=None)


def make_input(kind: type, n: int) -> Sequence[Any]:
    """``n`` distinct elements as a str, bytes, list or tuple."""
    if kind is str:
        return "".join(chr(0x100 + i) for i in range(n))
    if kind is bytes:
        return bytes(range(n))
    result: Sequence[Any] = kind(range(n))
    return result


def restrict(whole: Sequence[Any], keep: set[Any]) -> Sequence[Any]:
    """The elements of ``whole`` that are in ``keep``, in order, in ``whole``'s type."""
    items = [x for x in whole if x in keep]
    if isinstance(whole, str):
        return "".join(items)
    if isinstance(whole, bytes):
        return bytes(items)
    return tuple(items) if isinstance(whole, tuple) else items


@st.composite
def inputs_and_required(draw: st.DrawFn) -> tuple[Sequence[Any], list[Any]]:
    kind = draw(st.sampled_from([str, bytes, list, tuple]))
    n = draw(st.integers(1, 120))
    elements = make_input(kind, n)
    k = draw(st.integers(1, min(8, n)))
    positions = sorted(draw(st.lists(st.integers(0, n - 1), min_size=k, max_size=k, unique=True)))
    return elements, [elements[i] for i in positions]


@st.composite
def hashed_predicates(draw: st.DrawFn) -> tuple[Sequence[Any], Test]:
    """A non-monotone, three-valued test: FAIL, PASS or UNRESOLVED by a hash of
    the candidate; the full input always FAILs and the empty one always PASSes."""
    kind = draw(st.sampled_from([str, bytes, list, tuple]))
    elements = make_input(kind, draw(st.integers(1, 24)))
    salt = draw(st.integers(0, 2**32 - 1))
    fail_in = draw(st.integers(1, 6))  # about one candidate in ``fail_in`` FAILs
    full = tuple(elements)

    def test(candidate: Sequence[Any]) -> Outcome:
        values = tuple(candidate)
        if values == full:
            return Outcome.FAIL
        if not values:
            return Outcome.PASS
        h = zlib.crc32(repr(values).encode(), salt)
        if h % fail_in == 0:
            return Outcome.FAIL
        return Outcome.UNRESOLVED if (h // fail_in) % 4 == 0 else Outcome.PASS

    return elements, test


def contains_all(required: list[Any]) -> Test:
    def test(candidate: Sequence[Any]) -> Outcome:
        return Outcome.FAIL if set(required) <= set(candidate) else Outcome.PASS

    return test


@FAST
@given(inputs_and_required())
def test_ddmin_finds_exactly_the_required_elements(case: tuple[Sequence[Any], list[Any]]) -> None:
    elements, required = case
    result = ddmin(elements, contains_all(required))
    assert type(result) is type(elements)
    assert list(result) == required


def assert_one_minimal(elements: Sequence[Any], result: Sequence[Any], test: Test) -> None:
    assert test(result) is Outcome.FAIL
    for x in result:
        assert test(restrict(elements, set(result) - {x})) is not Outcome.FAIL


@FAST
@given(inputs_and_required())
def test_ddmin_result_is_one_minimal_for_monotone_tests(
    case: tuple[Sequence[Any], list[Any]],
) -> None:
    elements, required = case
    test = contains_all(required)
    assert_one_minimal(elements, ddmin(elements, test), test)


@FAST
@given(hashed_predicates())
def test_ddmin_result_is_one_minimal_for_any_test(case: tuple[Sequence[Any], Test]) -> None:
    elements, test = case
    result = ddmin(elements, test)
    assert type(result) is type(elements)
    assert set(result) <= set(elements)
    assert_one_minimal(elements, result, test)


@FAST
@given(hashed_predicates())
def test_isolation_gives_a_one_minimal_difference(case: tuple[Sequence[Any], Test]) -> None:
    # Zeller & Hildebrandt (TSE 2002): for every δ in the difference,
    # c_pass ∪ {δ} is not PASS and c_fail − {δ} is not FAIL.
    elements, test = case
    result = dd(elements, test, "+-")
    passing, failing = set(result.passing), set(result.failing)
    assert passing <= failing
    assert list(result.passing) == [x for x in elements if x in passing]
    assert list(result.failing) == [x for x in elements if x in failing]
    assert set(result.difference) == failing - passing
    assert test(result.passing) is Outcome.PASS
    assert test(result.failing) is Outcome.FAIL
    for delta in result.difference:
        assert test(restrict(elements, passing | {delta})) is not Outcome.PASS
        assert test(restrict(elements, failing - {delta})) is not Outcome.FAIL


@FAST
@given(hashed_predicates())
def test_maximising_gives_a_one_maximal_passing_input(case: tuple[Sequence[Any], Test]) -> None:
    elements, test = case
    result = dd(elements, test, "+")
    passing = set(result.passing)
    assert test(result.passing) is Outcome.PASS
    assert result.failing == elements
    for delta in set(elements) - passing:
        assert test(restrict(elements, passing | {delta})) is not Outcome.PASS


@settings(max_examples=100, deadline=None)
@given(hashed_predicates(), st.sampled_from(MODES))
def test_cached_and_uncached_runs_agree(case: tuple[Sequence[Any], Test], mode: Any) -> None:
    elements, test = case
    cached = dd(elements, test, mode)
    uncached = dd(elements, test, mode, cache=False)
    assert (cached.passing, cached.failing, cached.difference) == (
        uncached.passing,
        uncached.failing,
        uncached.difference,
    )
    assert uncached.cache_hits == 0
    assert cached.tests <= uncached.tests
    assert cached.tests + cached.cache_hits == uncached.tests


@settings(max_examples=100, deadline=None)
@given(hashed_predicates(), st.sampled_from(MODES))
def test_an_eager_batch_agrees_with_sequential_tests(
    case: tuple[Sequence[Any], Test], mode: Any
) -> None:
    elements, test = case
    sequential = dd(elements, test, mode)
    batched = dd(elements, test, mode, batch=lambda cs: iter([test(c) for c in cs]))
    assert (batched.passing, batched.failing, batched.difference) == (
        sequential.passing,
        sequential.failing,
        sequential.difference,
    )
