"""Grammar-based reduction: ``astreduce reduce INPUT --grammar G.lark`` for inputs that are not Python."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from astreduce.cli import main
from astreduce.errors import UsageError
from astreduce.grammar import Grammar, GrammarSearch, render
from astreduce.oracles import Verdict
from astreduce.run import Run
from astreduce.outcome import Outcome
from astreduce.search.session import Session

GRAMMARS = Path(__file__).resolve().parent.parent / "corpora" / "grammar"
EXPRESSION = GRAMMARS / "expression_parentheses"
JSON_CASE = GRAMMARS / "json_huge_integer"
PYTHON = shlex.quote(sys.executable)


def reduce_in_process(grammar: Grammar, text: str, fails: object) -> tuple[str, int]:
    """The grammar search on ``text`` with an in-process oracle ``fails(text) -> bool | None``."""

    def judge(candidate: str) -> Verdict:
        result = fails(candidate)  # type: ignore[operator]
        outcome = Outcome.UNRESOLVED if result is None else Outcome.FAIL if result else Outcome.PASS
        return Verdict(outcome, Run("exception" if result else "ok"))

    session = Session(text, judge)
    GrammarSearch(grammar, text, "input").run(session)
    return session.best, session.tests


def json_fails_on_key(key: str) -> object:
    def fails(text: str) -> bool | None:
        try:
            data = json.loads(text)
        except ValueError:
            return None
        return key in json.dumps(data)

    return fails


@pytest.fixture(scope="module")
def json_grammar() -> Grammar:
    return Grammar.load(JSON_CASE / "grammar.lark")


@pytest.fixture(scope="module")
def expression_grammar() -> Grammar:
    return Grammar.load(EXPRESSION / "grammar.lark")


# -- the derivation tree ------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ['{"a": [1, 2.5, "x"], "b": null}\n', '  [ true ,false,\n\n  {} ]  \n\n', "[]", '"only"\n'],
    ids=["object", "odd-spacing", "no-line-ending", "string"],
)
def test_rendering_the_parsed_tree_gives_the_input_back(json_grammar: Grammar, text: str) -> None:
    root, gaps, tail = json_grammar.parse(text, "input.json")
    assert render(root, gaps, tail) == text


def test_shortest_expansions_come_from_the_grammar(expression_grammar: Grammar) -> None:
    _, gaps, _ = expression_grammar.parse("1 + 2\n", "x")
    for symbol in ("start", "expr", "term", "factor", "integer"):
        shortest = expression_grammar.shortest(symbol)
        assert shortest is not None
        assert render(shortest, gaps, "") == "0"


def test_a_node_derives_only_what_its_rule_allows(json_grammar: Grammar) -> None:
    assert json_grammar.derives("array", "[1, 2]")
    assert json_grammar.derives("array", "[]")
    assert not json_grammar.derives("array", "[1,, 2]")
    assert not json_grammar.derives("object", "[1]")


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{"a": 1,\n "b": }\n', "line 2, column 7"),
        ('{"a": [1, 2\n', "line 1, column 12"),
        ("[1, 2]\n]\n", "line 2, column 1"),
    ],
    ids=["missing-value", "end-of-input", "extra-bracket"],
)
def test_unparseable_input_names_the_line_and_column(json_grammar: Grammar, text: str, where: str) -> None:
    with pytest.raises(UsageError, match=where):
        json_grammar.parse(text, "input.json")


def test_an_unknown_start_rule_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="no rule 'document'"):
        Grammar.load(JSON_CASE / "grammar.lark", "document")


def test_a_grammar_that_does_not_compile_is_a_usage_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.lark"
    bad.write_text("start: item\n", encoding="utf-8")
    with pytest.raises(UsageError, match="does not compile"):
        Grammar.load(bad)


# -- the search -----------------------------------------------------------------------------


def test_repeated_parts_are_deleted_and_surviving_spacing_is_kept(json_grammar: Grammar) -> None:
    text = '{\n  "a": 1,\n  "b": [2, 3],\n  "needle": 4,\n  "c": {"d": 5}\n}\n'
    best, _ = reduce_in_process(json_grammar, text, json_fails_on_key("needle"))
    assert best == '{\n  "needle": 4\n}\n'  # "4" to "0" is no smaller


def test_every_candidate_is_a_sentence_of_the_grammar(json_grammar: Grammar) -> None:
    text = '[{"k": [1, 2, {"needle": true}]}, 3, "s", [4, [5]]]\n'
    tried: list[str] = []

    def fails(candidate: str) -> bool:
        tried.append(candidate)
        return "needle" in candidate

    best, tests = reduce_in_process(json_grammar, text, fails)
    assert best == '{"needle": 0}\n'
    assert tests == len(tried)
    for candidate in tried:
        json.loads(candidate)


def test_the_long_expression_reduces_to_one_parenthesised_number(expression_grammar: Grammar) -> None:
    text = (EXPRESSION / "input.txt").read_text(encoding="utf-8")

    def fails(candidate: str) -> bool:
        return 0 <= candidate.find("(") < candidate.find(")")

    best, tests = reduce_in_process(expression_grammar, text, fails)
    assert best.strip() == "(4)"
    assert tests <= 20


# -- the command line ---------------------------------------------------------------------------


def run_cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_reduce_grammar_end_to_end_with_report(tmp_path: Path) -> None:
    output, report = tmp_path / "out.txt", tmp_path / "report.json"
    code, _ = run_cli(
        "reduce", str(EXPRESSION / "input.txt"), "--grammar", str(EXPRESSION / "grammar.lark"),
        "--run", f"{PYTHON} {shlex.quote(str(EXPRESSION / 'mystery.py'))} {{file}}", "--exit-code", "1",
        "-o", str(output), "--report", str(report), "-q", "-j", "2",
    )  # fmt: skip
    assert code == 0
    assert output.read_text(encoding="utf-8") == "(4)\n"
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["strategy"] == "grammar"
    assert data["verified"] is True
    assert data["tests"] <= 20


def test_unparseable_input_exits_2_with_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("1 + (2 *\n", encoding="utf-8")
    code, output = run_cli(
        "reduce", str(bad), "--grammar", str(EXPRESSION / "grammar.lark"), "--run", "false {file}", "-q"
    )
    assert code == 2
    assert output.strip().splitlines() == [
        (
            "astreduce: bad.txt: line 1, column 9: the input does not parse with the grammar"
            " grammar.lark (start start): unexpected end of input"
        )
    ]
    assert not (tmp_path / "bad.reduced.txt").exists()


def test_the_exec_oracle_is_refused_with_a_grammar(tmp_path: Path) -> None:
    code, output = run_cli("reduce", str(EXPRESSION / "input.txt"), "--grammar", str(EXPRESSION / "grammar.lark"),
                           "-o", str(tmp_path / "out.txt"))  # fmt: skip
    assert code == 2
    assert "--grammar reduces an input that is data" in output


def test_compare_grammar_adds_a_row_beside_chars(tmp_path: Path) -> None:
    small = tmp_path / "small.txt"
    small.write_text("1 + 2 * (3 - 4) / 5\n", encoding="utf-8")
    table = tmp_path / "table.json"
    code, output = run_cli(
        "compare", str(small), "--grammar", str(EXPRESSION / "grammar.lark"), "--strategy", "chars",
        "--run", f"{PYTHON} {shlex.quote(str(EXPRESSION / 'mystery.py'))} {{file}}", "--exit-code", "1",
        "--report", str(table), "-q", "-j", "2",
    )  # fmt: skip
    assert code == 0, output
    rows = {row["strategy"]: row for row in json.loads(table.read_text(encoding="utf-8"))["rows"]}
    assert set(rows) == {"chars", "grammar"}
    assert rows["grammar"]["tests"] < rows["chars"]["tests"]
    assert "grammar" in output and "chars" in output


def test_json_document_reduces_to_the_one_huge_value(tmp_path: Path) -> None:
    """The standard library's json refuses the whole document because of one 4,400-digit integer."""
    subprocess.run([sys.executable, str(JSON_CASE / "build.py"), str(tmp_path)], check=True, timeout=60)
    document, output = tmp_path / "input.json", tmp_path / "out.json"
    code, _ = run_cli(
        "reduce", str(document), "--grammar", str(JSON_CASE / "grammar.lark"),
        "--run", f"{PYTHON} {shlex.quote(str(JSON_CASE / 'load.py'))} {{file}}",
        "--stderr", "Exceeds the limit", "-o", str(output), "-q", "-j", "2",
    )  # fmt: skip
    assert code == 0
    assert output.read_text(encoding="utf-8") == "7" * 4400 + "\n"
    assert len(document.read_text(encoding="utf-8")) > 19_000
