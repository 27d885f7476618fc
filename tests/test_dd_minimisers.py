"""CDD, ProbDD and weighted ddmin beside ddmin: results, promises, cache, batches (hypothesis)."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from astreduce.dd import ALGORITHMS, Outcome, cdd_search, dd, minimise
from astreduce.dd.counter import subset_size
from astreduce.dd.weighted import weighted_cuts
from astreduce.errors import DDPreconditionError
from tests.test_dd_properties import (
    FAST,
    Test,
    assert_one_minimal,
    contains_all,
    hashed_predicates,
    inputs_and_required,
)

ONE_MINIMAL = ("ddmin", "wddmin", "cdd")


@FAST
@given(inputs_and_required(), st.sampled_from(ALGORITHMS))
def test_every_minimiser_finds_exactly_the_required_elements(
    case: tuple[Sequence[Any], list[Any]], algorithm: str
) -> None:
    elements, required = case
    result = minimise(elements, contains_all(required), algorithm)
    assert type(result.failing) is type(elements)
    assert list(result.failing) == required


@FAST
@given(hashed_predicates(), st.sampled_from(ALGORITHMS))
def test_every_result_fails_and_is_a_subsequence(case: tuple[Sequence[Any], Test], algorithm: str) -> None:
    elements, test = case
    result = minimise(elements, test, algorithm)
    assert test(result.failing) is Outcome.FAIL
    assert list(result.failing) == [x for x in elements if x in set(result.failing)]


@FAST
@given(hashed_predicates(), st.sampled_from(ONE_MINIMAL))
def test_one_minimal_where_promised_for_any_test(case: tuple[Sequence[Any], Test], algorithm: str) -> None:
    elements, test = case
    weights = [float((i * 7) % 5 + 1) for i in range(len(elements))]
    assert_one_minimal(elements, minimise(elements, test, algorithm, weights=weights).failing, test)


@settings(max_examples=100, deadline=None)
@given(hashed_predicates(), st.sampled_from(ALGORITHMS))
def test_deterministic_cached_and_batched_runs_agree(case: tuple[Sequence[Any], Test], algorithm: str) -> None:
    elements, test = case
    first = minimise(elements, test, algorithm)
    again = minimise(elements, test, algorithm)
    uncached = minimise(elements, test, algorithm, cache=False)

    def batch(candidates: list[Sequence[Any]]) -> Iterator[Outcome]:
        return iter([test(c) for c in candidates])  # eager: everything runs ahead

    batched = minimise(elements, test, algorithm, batch=batch)
    assert first.failing == again.failing == uncached.failing == batched.failing
    assert first.tests == again.tests and first.tests <= uncached.tests
    assert uncached.cache_hits == 0


@settings(max_examples=100, deadline=None)
@given(hashed_predicates(), st.sampled_from(ALGORITHMS))
def test_with_the_cache_no_candidate_is_tested_twice(case: tuple[Sequence[Any], Test], algorithm: str) -> None:
    elements, plain = case
    seen: list[tuple[Any, ...]] = []

    def test(candidate: Sequence[Any]) -> Outcome:
        seen.append(tuple(candidate))
        return plain(candidate)

    result = minimise(elements, test, algorithm)
    assert len(seen) == len(set(seen)) == result.tests


@given(st.lists(st.floats(0, 100), min_size=1, max_size=40), st.integers(1, 50))
def test_weighted_cuts_cover_the_items_in_order_without_empty_parts(weights: list[float], parts: int) -> None:
    items = tuple(range(len(weights)))
    cuts = weighted_cuts(items, weights, parts)
    assert len(cuts) == min(parts, len(items))
    assert all(cuts) and tuple(i for cut in cuts for i in cut) == items


def test_a_heavy_element_is_cut_alone() -> None:
    assert weighted_cuts((0, 1, 2, 3, 4), [1, 1, 50, 1, 1], 2) == [(0, 1, 2), (3, 4)]
    assert weighted_cuts((0, 1, 2, 3, 4), [1, 1, 50, 1, 1], 3) == [(0, 1, 2), (3,), (4,)]
    assert weighted_cuts((0, 1, 2, 3), [1, 1, 1, 1], 2) == [(0, 1), (2, 3)]


def test_subset_sizes_shrink_from_the_papers_prior_to_one() -> None:
    sizes = [subset_size(0.1, r) for r in range(8)]
    assert sizes[0] == 9  # −1 / ln(0.9) ≈ 9.5
    assert sizes == sorted(sizes, reverse=True) and sizes[-1] == 1


def test_cdd_needs_fewer_tests_than_ddmin_when_much_is_needed() -> None:
    rng = random.Random(3)
    required = sorted(rng.sample(range(300), 40))
    test = contains_all(required)
    ddmin = dd(list(range(300)), test)
    cdd = cdd_search(list(range(300)), test)
    assert list(cdd.failing) == list(ddmin.failing) == required
    assert cdd.tests < ddmin.tests / 3


def test_cdd_with_a_small_prior_halves_like_ddmin_on_one_needle() -> None:
    test = contains_all([617])
    result = cdd_search(list(range(1000)), test, p0=1 / 1000)
    assert list(result.failing) == [617]
    assert result.tests < 40


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_passing_input_is_a_precondition_error(algorithm: str) -> None:
    with pytest.raises(DDPreconditionError, match="full input does not fail"):
        minimise("abc", contains_all(["z"]), algorithm)


def test_bad_arguments_are_rejected() -> None:
    with pytest.raises(ValueError, match="unknown minimiser"):
        minimise("abc", contains_all(["a"]), "bisect")
    with pytest.raises(ValueError, match="weights for"):
        minimise("abc", contains_all(["a"]), "cdd", weights=[1.0])
    with pytest.raises(ValueError, match="p0"):
        cdd_search("abc", contains_all(["a"]), p0=1.0)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_an_empty_result_is_found(algorithm: str) -> None:
    assert minimise("abc", lambda c: Outcome.FAIL, algorithm).failing == ""
