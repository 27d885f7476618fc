"""The Python API: ``astreduce.reduce_source`` and ``astreduce.reduce_file``.

The exec oracle forks a child per candidate, so these tests use small
programs; the plug-in oracle tests use an oracle that runs nothing.
"""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import pytest

import astreduce
from astreduce import AstReduceError, NotReproducibleError, ReductionStopped, Result, UsageError, reduce_file, reduce_source
from astreduce.oracles import Verdict
from astreduce.run import Run
from astreduce.outcome import Outcome
from astreduce.reduce.report import report_dict
from astreduce.search.session import ProgressEvent

PROGRAM = """\
def parse(text):
    parts = text.split(",")
    return [int(p) for p in parts]


values = parse("1,2,3")
extra = sum(values) * 2
assert len(values) == 4, "My Test"
"""


def last_error(text: str, folder: Path) -> str:
    path = folder / "check_output.py"
    path.write_text(text, encoding="utf-8")
    process = subprocess.run([sys.executable, path.name], cwd=folder, capture_output=True, text=True, timeout=30)
    lines = process.stderr.strip().splitlines()
    return lines[-1] if lines else ""


class Contains:
    """A plug-in oracle: FAIL when every needle is in the candidate. Runs nothing."""

    def __init__(self, *needles: str) -> None:
        self.needles = needles
        self.judged: list[str] = []

    @property
    def identity(self) -> str:
        return "contains|" + "|".join(self.needles)

    def judge(self, text: str) -> Verdict:
        self.judged.append(text)
        if all(n in text for n in self.needles):
            return Verdict(Outcome.FAIL, Run("exception", "Found", "needle"))
        return Verdict(Outcome.PASS, Run("ok"))


def test_public_names() -> None:
    for name in ("reduce_source", "reduce_file", "Result", "UsageError", "NotReproducibleError", "ReductionStopped"):
        assert name in astreduce.__all__
    assert issubclass(UsageError, AstReduceError) and issubclass(NotReproducibleError, AstReduceError)
    assert issubclass(ReductionStopped, AstReduceError)


# --- reduce_source with the exec oracle ----------------------------------------------------


@pytest.fixture(scope="module")
def result() -> Result:
    return reduce_source(PROGRAM, expect="AssertionError:My Test")


def test_reduce_source_returns_a_verified_smaller_result(result: Result, tmp_path: Path) -> None:
    assert isinstance(result, Result)
    assert result.verified is True
    assert result.tests > 0
    assert result.strategy == "auto"
    assert result.original == PROGRAM
    assert result.output_size.tokens < result.input_size.tokens
    assert len(result.text) < len(PROGRAM)
    assert "extra" not in result.text
    assert 0 < result.oracle_seconds <= result.seconds
    assert result.passes and all(p.tokens_after <= p.tokens_before for p in result.passes)
    assert last_error(result.text, tmp_path) == "AssertionError: My Test"


def test_report_dict_of_a_result(result: Result) -> None:
    report = report_dict(result, "in.py", "out.py")
    assert report["input"]["path"] == "in.py" and report["output"]["path"] == "out.py"
    assert report["input"]["bytes"] == len(PROGRAM.encode())
    assert report["output"]["tokens"] == result.output_size.tokens
    assert report["tests"] == result.tests and report["verified"] is True
    assert [p["name"] for p in report["passes"]] == [p.name for p in result.passes]


def test_reduce_source_without_expect_targets_the_original_exception(tmp_path: Path) -> None:
    result = reduce_source("items = {}\nunused = 1\nitems['key']\n", strategy="hdd")
    assert result.verified
    assert "unused" not in result.text
    assert last_error(result.text, tmp_path) == "KeyError: 'key'"


def test_reduce_source_with_the_literature_strategies() -> None:
    text = "x = 1\nraise KeyError(2)\n"
    for strategy in ("lines", "tokens", "flat"):
        result = reduce_source(text, strategy=strategy)
        assert result.strategy == strategy and result.verified
        assert result.text.strip() == "raise KeyError(2)", strategy


def test_not_reproducible_when_nothing_is_raised() -> None:
    with pytest.raises(NotReproducibleError, match="no exception"):
        reduce_source("x = 1\n")


def test_not_reproducible_names_expected_and_actual() -> None:
    with pytest.raises(NotReproducibleError) as caught:
        reduce_source("print(undefined_name)\n", expect="AssertionError:My Test")
    message = str(caught.value)
    assert "expected AssertionError('My Test')" in message
    assert "got NameError(" in message and "undefined_name" in message


@pytest.mark.parametrize(
    ("text", "options", "expected"),
    [
        pytest.param(PROGRAM, {"strategy": "nope"}, "unknown strategy 'nope'", id="strategy"),
        pytest.param(PROGRAM, {"transforms": ["nope"]}, "unknown transform nope", id="transform"),
        pytest.param(PROGRAM, {"expect": "1bad"}, "--expect", id="expect"),
        pytest.param(PROGRAM, {"expect": ""}, "--expect", id="empty-expect"),
        pytest.param(PROGRAM, {"match": "bogus"}, "--match", id="match"),
        pytest.param(PROGRAM, {"match": "regex:("}, "regular expression", id="regex"),
        pytest.param("a = 1\nb = (\n", {}, r"candidate\.py:2:\d+: does not parse", id="syntax"),
        pytest.param("a = 1\n\0\n", {}, r"candidate\.py:2:1: contains a null byte", id="null-byte"),
    ],
)
def test_usage_errors(text: str, options: dict[str, object], expected: str) -> None:
    with pytest.raises(UsageError, match=expected):
        reduce_source(text, **options)  # type: ignore[arg-type]


# --- plug-in oracles ------------------------------------------------------------------------


def test_a_plug_in_oracle_reduces_text_that_is_not_python() -> None:
    text = "alpha beta\n((( needle ]]\nomega\n"
    oracle = Contains("needle")
    result = reduce_source(text, oracle, strategy="lines")
    assert result.text == "((( needle ]]\n"
    assert result.verified and oracle.judged[0] == text
    chars = reduce_source(text, Contains("needle"), strategy="chars")
    assert chars.text == "needle"


class CollectorWatch(Contains):
    """:class:`Contains`, noting the cycle collector's thresholds at each test."""

    def __init__(self, *needles: str) -> None:
        super().__init__(*needles)
        self.thresholds: list[tuple[int, int, int]] = []

    def judge(self, text: str) -> Verdict:
        self.thresholds.append(gc.get_threshold())
        return super().judge(text)


def test_the_search_runs_with_the_collector_seldom_awake_and_gives_its_thresholds_back() -> None:
    before = gc.get_threshold()
    oracle = CollectorWatch("needle")
    result = reduce_source("a = 1\nb = 'needle'\nc = 3\n", oracle, strategy="lines")
    assert result.text == "b = 'needle'\n"
    searched = oracle.thresholds[1:-1]  # the original's test and the final check are outside the search
    assert searched and all(t[0] > before[0] for t in searched)
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_a_plug_in_oracle_that_does_not_fail_on_the_original() -> None:
    with pytest.raises(NotReproducibleError, match="PASS"):
        reduce_source("x = 1\n", Contains("needle"), strategy="lines")


def test_an_interrupted_reduction_keeps_the_best_so_far() -> None:
    text = "".join(f"line {i}\n" for i in range(64)) + "needle\n"
    events: list[ProgressEvent] = []

    def stop_after_a_few(event: ProgressEvent) -> None:
        events.append(event)
        if len(events) == 6:
            raise KeyboardInterrupt

    with pytest.raises(ReductionStopped) as caught:
        reduce_source(text, Contains("needle"), strategy="lines", on_progress=stop_after_a_few)
    result = caught.value.result
    assert isinstance(result, Result)
    assert result.interrupted and result.verified
    assert "needle" in result.text
    assert len(result.text) < len(text)  # progress made before the interruption is kept


@pytest.mark.parametrize("strategy", ["lines", "chars", "tokens", "auto"])
def test_progress_shows_the_best_moving_within_every_strategy(strategy: str) -> None:
    """Before, "best" stayed at the input's size for the whole of a lines, chars or tokens run (one pass)."""
    text = "".join(f"x{i} = {i}\n" for i in range(24)) + "needle = 1\n"
    events: list[ProgressEvent] = []
    result = reduce_source(text, Contains("needle"), strategy=strategy, on_progress=events.append)
    before_the_last = [event.best.tokens for event in events[:-1]]
    assert min(before_the_last) < result.input_size.tokens
    assert all(later <= earlier for earlier, later in zip(before_the_last, before_the_last[1:]))
    assert events[-1].best.tokens >= result.output_size.tokens


# --- reduce_file ----------------------------------------------------------------------------------


def test_reduce_file_writes_the_output_and_leaves_the_input(tmp_path: Path) -> None:
    path = tmp_path / "prog.py"
    path.write_text(PROGRAM)
    result = reduce_file(path, tmp_path / "out.py", expect="AssertionError:My Test", transforms=["delete"])
    assert result.verified
    assert path.read_text() == PROGRAM
    assert (tmp_path / "out.py").read_text() == result.text
    assert len(result.text) < len(PROGRAM)


def test_reduce_file_default_output_and_encoding(tmp_path: Path) -> None:
    path = tmp_path / "legacy.py"
    data = '# -*- coding: latin-1 -*-\nunused = 1\nraise ValueError("façade")\n'.encode("latin-1")
    path.write_bytes(data)
    result = reduce_file(path, strategy="lines")
    output = tmp_path / "legacy.reduced.py"
    assert output.is_file()
    assert "façade".encode("latin-1") in output.read_bytes()
    assert output.read_bytes().decode("latin-1").endswith(result.text)
    assert path.read_bytes() == data
    assert sorted(p.name for p in tmp_path.iterdir()) == ["legacy.py", "legacy.reduced.py"]


def test_reduce_file_writes_the_best_so_far_when_interrupted(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    text = "".join(f"line {i}\n" for i in range(64)) + "needle\n"
    path.write_text(text)
    count = 0

    def stop(event: ProgressEvent) -> None:
        nonlocal count
        count += 1
        if count == 6:
            raise KeyboardInterrupt

    with pytest.raises(ReductionStopped) as caught:
        reduce_file(path, tmp_path / "out.txt", oracle=Contains("needle"), strategy="lines", on_progress=stop)
    written = (tmp_path / "out.txt").read_text()
    assert written == caught.value.result.text
    assert "needle" in written and len(written) < len(text)
    assert path.read_text() == text


@pytest.mark.parametrize(
    ("make", "output", "expected"),
    [
        pytest.param(None, None, "No such file", id="missing"),
        pytest.param("dir", None, "directory", id="directory"),
        pytest.param("file", "missing/out.py", "does not exist", id="output-folder-missing"),
        pytest.param("file", "prog.py", "overwrite the input", id="output-is-input"),
    ],
)
def test_reduce_file_usage_errors(tmp_path: Path, make: str | None, output: str | None, expected: str) -> None:
    path = tmp_path / "prog.py"
    if make == "dir":
        path.mkdir()
    elif make == "file":
        path.write_text('raise ValueError("x")\n')
    with pytest.raises(UsageError, match=expected):
        reduce_file(path, None if output is None else tmp_path / output)
    if make == "file":
        assert path.read_text() == 'raise ValueError("x")\n'
        assert sorted(p.name for p in tmp_path.iterdir()) == ["prog.py"]


# --- the delta-debugging API (issue 29) --------------------------------------------------------


def parenthesised(candidate: object) -> bool:
    """True (the failure reproduces) when an opening parenthesis comes before a closing one."""
    text = "".join(candidate) if not isinstance(candidate, str) else candidate
    return "(" in text and ")" in text.split("(", 1)[1]


def test_astreduce_dd_is_the_subpackage() -> None:
    import types

    import astreduce.dd.counter

    assert isinstance(astreduce.dd, types.ModuleType)
    assert astreduce.dd.__name__ == "astreduce.dd"
    assert astreduce.dd.cdd is astreduce.dd.counter.cdd
    assert astreduce.dd.cdd("abc(def)", parenthesised) == "()"
    assert astreduce.dd.dd is astreduce.delta_debug
    assert "delta_debug" in astreduce.__all__ and "dd" in astreduce.__all__


def test_calling_astreduce_dd_still_runs_the_dd_function() -> None:
    from astreduce import dd

    by_call = dd("abc(def)", parenthesised, mode="+-")
    assert by_call == astreduce.delta_debug("abc(def)", parenthesised, mode="+-")
    assert by_call.failing == "(def)" and by_call.difference == "("


@pytest.mark.parametrize("algorithm", ["ddmin", "wddmin", "cdd", "probdd"])
def test_minimisers_accept_a_test_that_returns_a_bool(algorithm: str) -> None:
    def as_outcome(candidate: object) -> Outcome:
        return Outcome.FAIL if parenthesised(candidate) else Outcome.PASS

    by_bool = astreduce.dd.minimise("xy(ab)z", parenthesised, algorithm)
    by_outcome = astreduce.dd.minimise("xy(ab)z", as_outcome, algorithm)
    assert by_bool.failing == by_outcome.failing == "()"
    assert by_bool.tests == by_outcome.tests


@pytest.mark.parametrize("mode", ["-", "+", "+-"])
def test_ddmin_and_dd_accept_a_test_that_returns_a_bool(mode: str) -> None:
    assert astreduce.ddmin("abc(def)", parenthesised) == "()"
    assert astreduce.ddmin(list("abc(def)"), lambda c: parenthesised(c)) == ["(", ")"]
    with_bool = astreduce.delta_debug("abc(def)", parenthesised, mode)  # type: ignore[arg-type]
    with_outcome = astreduce.delta_debug(
        "abc(def)", lambda c: Outcome.FAIL if parenthesised(c) else Outcome.PASS, mode  # type: ignore[arg-type]
    )
    assert with_bool == with_outcome


def test_a_bool_test_in_a_batch_and_in_the_stepwise_search() -> None:
    from astreduce.dd.stepwise import dd_stepwise

    def batch(candidates: list[str]):  # type: ignore[no-untyped-def]
        return (parenthesised(c) for c in candidates)

    assert astreduce.ddmin("abc(def)", parenthesised, batch=batch) == "()"
    assert dd_stepwise("abc(def)", parenthesised).failing == "()"


def test_a_test_that_returns_neither_outcome_nor_bool_is_refused() -> None:
    with pytest.raises(TypeError, match="not an Outcome or a bool"):
        astreduce.ddmin("abc", lambda c: None)  # type: ignore[arg-type,return-value]


def test_oracle_options_are_exported() -> None:
    from astreduce import OracleOptions
    from astreduce.oracles.options import OracleOptions as Original

    assert OracleOptions is Original and "OracleOptions" in astreduce.__all__
    assert OracleOptions(expect="KeyError").expect == "KeyError"


def test_the_version() -> None:
    import re
    from importlib import metadata

    assert isinstance(astreduce.__version__, str)
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", astreduce.__version__)
    try:
        installed = metadata.version("astreduce")
    except metadata.PackageNotFoundError:  # a source tree: the version pyproject.toml gives
        pyproject = (Path(__file__).resolve().parent.parent / "pyproject.toml").read_text(encoding="utf-8")
        match = re.search(r'^version = "([^"]+)"', pyproject, re.MULTILINE)
        assert match is not None
        installed = match.group(1)
    assert astreduce.__version__ == installed
