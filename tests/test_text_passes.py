"""The text passes (astreduce/search/text_passes.py) and the fixpoint that runs them.

What each pass proposes on small texts (data, one row per situation), what
none of them touches (strings, comments, statements on other lines), and
the reduction they make possible: a failure that needs a trailing comma the
syntax tree does not show (black 20.8b1's ``del (),``, mimicked here by a
predicate; ``tests/test_crash_corpora.py`` runs the real black on
``corpora/crash_black208b1_del_comma``).
"""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from astreduce import reduce_source
from astreduce.cli import main
from astreduce.oracles import Finished, Verdict
from astreduce.run import Run
from astreduce.outcome import Outcome
from astreduce.search import strategies
from astreduce.search.session import Session
from astreduce.search.strategies import Plan, StrategyRun, run_text_passes
from astreduce.search.unit_passes import splice_text
from astreduce.search.text_passes import PASSES, TOKEN_RUN_LIMIT, layout_of, token_runs
from astreduce.source.tree import Tree, parse_or_none
from astreduce.transforms import load_transforms

BY_NAME = {p.name: p for p in PASSES}


def candidates(pass_name: str, text: str) -> list[str]:
    """Every candidate of one pass on ``text``, one group applied at a time."""
    layout = layout_of(text)
    assert layout is not None
    groups = BY_NAME[pass_name].propose(layout, parse_or_none(text))
    return [splice_text(text, list(group)) for group in groups]


@pytest.mark.parametrize(
    ("pass_name", "text", "expected"),
    [
        # the tree takes an element with its comma; the text can leave the comma
        ("text: nodes with separator", "del (a, b), c,\n", "del (a, b),\n"),
        ("text: nodes with separator", "x = a + b\n", "x = b\n"),
        ("text: nodes with separator", "f(a,\n  b)\n", "f(\n  b)\n"),
        ("text: nodes", "del (a, b),\n", "del (a, ),\n"),
        ("text: nodes", "x = [1, 2]\n", "x = [1, ]\n"),
        ("text: bracket contents", "f(a, [b, c], d)\n", "f()\n"),
        ("text: bracket contents", "x = {1: 2}\n", "x = {}\n"),
        ("text: parentheses", "del (a, b), c,\n", "del a, b, c,\n"),
        ("text: parentheses", "x = (a + b) * c\n", "x = a + b * c\n"),
        ("text: backslashes", "x = 1 + \\\n    2\n", "x = 1 + 2\n"),
        ("text: backslashes", "x = 1 +\\\n    2\n", "x = 1 + 2\n"),
        ("text: string prefixes", "x = rb'a'\n", "x = 'a'\n"),
        ("text: string prefixes", "x = rb'a'\n", "x = b'a'\n"),
        ("text: string prefixes", "x = u'a'\n", "x = 'a'\n"),
        ("text: lines", "x = (1,\n     2)\n", "x = (1, 2)\n"),
        ("text: lines", "a = 1; b = 2\n", "a = 1\nb = 2\n"),
        ("text: lines", "if x:\n    a = 1; b = 2\n", "if x:\n    a = 1\n    b = 2\n"),
        ("text: lines", "a = 1\n\nb = 2\n", "a = 1\nb = 2\n"),
        ("text: lines", "a = 1   \n", "a = 1\n"),
        ("text: token runs", "del (a, b), c,\n", "del (a, b),\n"),
        ("text: token runs", "x = f(a)[0]\n", "x = f[0]\n"),
    ],
    ids=lambda value: value if isinstance(value, str) and value.startswith("text") else None,
)
def test_a_pass_proposes(pass_name: str, text: str, expected: str) -> None:
    assert expected in candidates(pass_name, text)


@pytest.mark.parametrize(
    ("pass_name", "text", "untouched"),
    [
        # a backslash inside a string or a comment is no continuation
        ("text: backslashes", 's = """a \\\nb"""\n', "a \\\nb"),
        ("text: backslashes", "x = 1  # a \\\ny = 2\n", "# a \\\ny"),
        # a line ending in a comment is never joined: the next line would become comment
        ("text: lines", "f(a,  # why\n  b)\n", "# why\n"),
        # the trailing blanks of a multi-line string's line are the string's
        ("text: lines", 's = """a   \nb"""\n', "a   \n"),
        # a call's parentheses are not grouping parentheses
        ("text: parentheses", "f(a)\n", "f(a)"),
    ],
)
def test_a_pass_leaves_alone(pass_name: str, text: str, untouched: str) -> None:
    for candidate in candidates(pass_name, text):
        assert untouched in candidate, candidate


def test_a_separator_on_another_line_belongs_to_another_statement() -> None:
    # outside brackets a line break ends the statement: ``del a,`` keeps its comma
    for candidate in candidates("text: nodes with separator", "del a,\ny = 1\n"):
        assert candidate.count("\n") == 2, candidate


def test_token_runs_are_every_run_of_two_or_more_tokens_on_small_texts_only() -> None:
    small = "x = f(a, b)[0]\n"  # 11 tokens
    layout = layout_of(small)
    assert layout is not None
    count = len(layout.tokens)
    runs = token_runs(layout, None)
    assert len(runs) == sum(count - length + 1 for length in range(2, count))
    assert len(set(runs)) == len(runs)
    big = "x = [" + ", ".join(str(i) for i in range(TOKEN_RUN_LIMIT)) + "]\n"
    big_layout = layout_of(big)
    assert big_layout is not None and len(big_layout.tokens) > TOKEN_RUN_LIMIT
    assert token_runs(big_layout, None) == []


def test_a_text_that_does_not_tokenize_gets_no_text_pass() -> None:
    assert layout_of("x = (1,\n") is None


# --- reductions -----------------------------------------------------------------

#: black 20.8b1 fails on a del statement that holds a parenthesized tuple and ends with a comma
_DEL_WITH_COMMA = re.compile(r"^\s*del\b.*\(.*\).*,\s*$", re.MULTILINE)

PROGRAM = '''\
class Lexer:
    def __init__(self, stream):
        self.stream = stream
        self.token = ""
        self.state = " "

    def reset(self, stream):
        """Forget the token and the state at once."""
        del (self.token, self.state), stream,
        return None
'''


class BlackLike:
    """FAIL when the candidate parses and has the del statement black 20.8b1 fails on; every candidate judged is kept."""

    identity = "black-like"

    def __init__(self) -> None:
        self.judged: list[str] = []

    def judge(self, text: str) -> Verdict:
        self.judged.append(text)
        try:
            ast.parse(text)
        except SyntaxError:
            return Verdict(Outcome.UNRESOLVED, Run("syntax", "SyntaxError"))
        if _DEL_WITH_COMMA.search(text):
            return Verdict(Outcome.FAIL, Run("exception", "InternalError", "not equivalent"))
        return Verdict(Outcome.PASS, Run("ok"))

    def calibrate(self, text: str) -> Verdict:
        return self.judge(text)

    def start(self, text: str) -> Finished:
        return Finished(self.judge(text))

    def close(self) -> None:
        pass


def test_text_passes_reach_a_trailing_comma_the_tree_cannot_keep() -> None:
    oracle = BlackLike()
    result = reduce_source(PROGRAM, oracle)
    assert result.text.strip() == "del (),"
    assert any(p.name.startswith("text: ") and p.tokens_after < p.tokens_before for p in result.passes)


def test_without_text_passes_the_comma_goes_with_the_element(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(strategies, "PASSES", ())
    result = reduce_source(PROGRAM, BlackLike())
    assert result.text.strip() != "del (),"
    assert result.output_size.tokens > 4


def test_the_tree_passes_run_again_after_a_text_pass_shrinks_the_best() -> None:
    result = reduce_source(PROGRAM, BlackLike())
    names = [p.name for p in result.passes]
    first_text_win = next(
        i for i, p in enumerate(result.passes) if p.name.startswith("text: ") and p.tokens_after < p.tokens_before
    )
    assert any(not name.startswith("text: ") for name in names[first_text_win + 1 :])


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_result_and_the_tests_do_not_depend_on_jobs(jobs: int) -> None:
    one = reduce_source(PROGRAM, BlackLike())
    many = reduce_source(PROGRAM, BlackLike(), jobs=jobs)
    assert (many.text, many.tests) == (one.text, one.tests)


def _session(text: str, judge: Callable[[str], Verdict]) -> Session:
    return Session(text, judge)


@pytest.mark.parametrize("command_oracle", [False, True])
def test_broken_candidates_are_tested_only_under_a_command_oracle(command_oracle: bool) -> None:
    oracle = BlackLike()
    text = "del (a, b), c,\n"
    session = _session(text, oracle.judge)
    plan = Plan.of(load_transforms(), unparsable_text=command_oracle)
    assert run_text_passes(session, StrategyRun(plan))
    assert session.best.strip() == "del (),"
    broken = [t for t in oracle.judged if not _parses(t)]
    assert bool(broken) is command_oracle
    assert session.syntax_rejections > 0  # the token runs' broken candidates, under every oracle


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True


# --- the real tool: black 20.8b1 on corpora/crash_black208b1_del_comma ------------------

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("crash_tools", ROOT / "corpora" / "crash_tools.py")
assert _spec is not None and _spec.loader is not None
crash_tools = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("crash_tools", crash_tools)
_spec.loader.exec_module(crash_tools)


def _reduce_del_comma(tmp_path: Path) -> tuple[str, dict[str, object]]:
    """Reduce the case's input with black 20.8b1 (its pinned venv); the output's text and the report."""
    case = crash_tools.load_crash_case(ROOT / "corpora" / "crash_black208b1_del_comma")
    try:
        env = crash_tools.prepare_tool(case)
    except crash_tools.ToolUnavailable as missing:
        pytest.skip(str(missing))
    source = crash_tools.materialise(case, tmp_path / "input")
    output, report = tmp_path / "out.py", tmp_path / "report.json"
    args = ["reduce", str(source), *crash_tools.resolve_args(case, env), "-o", str(output), "--report", str(report), "-q"]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 0, done.output
    ok, what = crash_tools.reproduces(case, output, env)
    assert ok, what
    return output.read_text(encoding="utf-8"), json.loads(report.read_text(encoding="utf-8"))


@pytest.mark.slow
def test_black_208b1_del_comma_reaches_its_essence(tmp_path: Path) -> None:
    text, report = _reduce_del_comma(tmp_path)
    assert text.strip() == "del (),"
    assert report["verified"] is True
    assert report["output"]["tokens"] == 4  # type: ignore[index]  # the report's JSON


@pytest.mark.slow
def test_black_208b1_del_comma_stops_short_without_text_passes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(strategies, "PASSES", ())
    text, _ = _reduce_del_comma(tmp_path)
    assert text.strip() != "del (),"  # the comma went with `line`, or `line` stayed


def test_under_another_interpreters_parser_it_checks_and_token_runs_are_skipped() -> None:
    oracle = BlackLike()
    parsed: list[str] = []

    def parse_there(text: str) -> Tree | None:  # stands for --python with newer syntax
        parsed.append(text)
        return parse_or_none(text)

    text = "del (a, b), c,\n"
    session = _session(text, oracle.judge)
    plan = Plan.of(load_transforms(), parse=parse_there, foreign_parser=True)
    assert run_text_passes(session, StrategyRun(plan))
    assert session.best.strip() == "del (),"
    assert all(_parses(t) for t in oracle.judged)
    assert any(not _parses(t) for t in parsed)  # the broken ones were checked there, not tested
    assert not any(p.name == "text: token runs" for p in session.passes)
    assert session.prepare is None  # the check is the text passes' own
