"""``astreduce compare``: every strategy on one input and one oracle, as a table and a plot.

The shape tests reduce the corpora's markup-stripping case and the random
arithmetic expression of ``bench/compare_expression.py`` with every
strategy. Character ddmin needs about 10,000 tests on each; with the exec
oracle (a fork per test, ~25 ms here) that is minutes, so those tests use
:class:`InProcessOracle`, which judges a candidate the way the exec oracle
does — compile, run as ``__main__``, match the exception — but inside this
process. Both inputs are deterministic and cannot hang, so the outcomes, and
with them every test count and result, are the same:
``test_cli_writes_table_csv_json_and_plot`` runs the command with the real
exec oracle and checks that its rows equal the in-process ones.
"""

from __future__ import annotations

import ast
import contextlib
import csv
import fcntl
import functools
import importlib.util
import io
import json
import os
import pickle
import random
import re
import signal
import sys
import types
import warnings
from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner

from astreduce.compare import (
    DEFAULT_STRATEGIES,
    ComparisonRow,
    compare,
    plot_comparison,
    render_table,
)
from astreduce.cli.compare import compare_command
from astreduce.errors import UsageError
from astreduce.oracles import Verdict
from astreduce.run import Run
from astreduce.outcome import Outcome

ROOT = Path(__file__).resolve().parent.parent
MARKUP = ROOT / "corpora" / "markup_stripping"
MARKUP_ARGS = ["--append", str(MARKUP / "check.py"), "--expect", "AssertionError:My Test"]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class _Timeout(BaseException):
    pass


class _Done:
    def __init__(self, verdict: Verdict) -> None:
        self.verdict = verdict

    def wait(self) -> Verdict:
        return self.verdict

    def cancel(self) -> None:
        pass


class InProcessOracle:
    """The exec oracle's judgement without the fork: for inputs that cannot hurt this process.

    FAIL when the candidate (with ``append`` after it) raises ``exception``
    (and, if given, exactly ``message``); PASS when it runs through;
    UNRESOLVED for a syntax error, another exception or a run over ``timeout``.
    """

    def __init__(
        self, exception: str, message: str | None = None, append: str = "", timeout: float = 5.0
    ) -> None:
        self.exception = exception
        self.message = message
        self.append = append
        self.timeout = timeout

    @property
    def identity(self) -> str:
        return f"in-process|{self.exception}|{self.message}|{self.append}"

    def judge(self, text: str) -> Verdict:
        source = text + ("\n" + self.append if self.append else "")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # SyntaxWarnings belong to the candidate
                code = compile(source, "candidate.py", "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as error:
            return Verdict(Outcome.UNRESOLVED, Run("syntax", type(error).__name__, str(error)))

        def expire(signum: int, frame: types.FrameType | None) -> None:
            raise _Timeout

        previous = signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, self.timeout)
        try:
            with (
                contextlib.redirect_stdout(io.StringIO()),
                contextlib.redirect_stderr(io.StringIO()),
            ):
                # judging a candidate is running it
                exec(code, {"__name__": "__main__"})  # noqa: S102
        except _Timeout:
            return Verdict(Outcome.UNRESOLVED, Run("timeout"))
        except Exception as error:  # noqa: BLE001  # the candidate's own exception, whatever it is
            run = Run("exception", type(error).__name__, str(error))
            same = type(error).__name__ == self.exception and self.message in (None, str(error))
            return Verdict(Outcome.FAIL if same else Outcome.UNRESOLVED, run)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        return Verdict(Outcome.PASS, Run("ok"))

    def start(self, text: str) -> _Done:
        return _Done(self.judge(text))


class ParenthesesOracle:
    """The literature's first example: FAIL when the text holds a matching pair ``()``."""

    identity = "parentheses"

    def judge(self, text: str) -> Verdict:
        return Verdict(Outcome.FAIL if "()" in text else Outcome.PASS, Run("ok"))

    def start(self, text: str) -> _Done:
        return _Done(self.judge(text))


def markup_oracle() -> InProcessOracle:
    return InProcessOracle(
        "AssertionError", "My Test", (MARKUP / "check.py").read_text(encoding="utf-8")
    )


def by_name(rows: list[ComparisonRow]) -> dict[str, ComparisonRow]:
    return {row.strategy: row for row in rows}


@pytest.fixture(scope="module")
def markup_rows(tmp_path_factory: pytest.TempPathFactory) -> list[ComparisonRow]:
    """The comparison of the markup case, made once a run: xdist workers share it through a file of the run's
    own temporary folder (each would take ~9 s)."""
    text = (MARKUP / "input.py").read_text(encoding="utf-8")
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return compare(text, markup_oracle(), DEFAULT_STRATEGIES, filename="input.py")
    shared = tmp_path_factory.getbasetemp().parent / "markup_rows.pickle"  # the run's folder, above each worker's
    with open(shared.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if shared.exists():
            rows: list[ComparisonRow] = pickle.loads(shared.read_bytes())
            return rows
        rows = compare(text, markup_oracle(), DEFAULT_STRATEGIES, filename="input.py")
        shared.write_bytes(pickle.dumps(rows))
        return rows


@functools.cache
def load_bench() -> types.ModuleType:
    """``bench/compare_expression.py`` (bench/ is not a package)."""
    path = ROOT / "bench" / "compare_expression.py"
    spec = importlib.util.spec_from_file_location("compare_expression", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


# --- the literature's shape ------------------------------------------------------------


def test_markup_table_has_the_literatures_shape(markup_rows: list[ComparisonRow]) -> None:
    rows = by_name(markup_rows)
    assert list(rows) == list(DEFAULT_STRATEGIES)
    assert all(row.verified for row in markup_rows)
    tests = {name: row.tests or 0 for name, row in rows.items()}
    tokens = {name: row.tokens or 0 for name, row in rows.items()}
    # lines: few tests, but a larger result than the syntax-tree strategies; auto, which sweeps
    # each pass once and runs tokens only when the tree passes stall, may test fewer (105 to 114)
    assert tests["lines"] == min(tests[name] for name in tests if name != "auto")
    assert tokens["lines"] > max(tokens["hdd"], tokens["auto"])
    # characters: many more tests than lines (the literature: 1,278 by characters)
    assert tests["chars"] >= 10 * tests["lines"]
    # the syntax-tree strategies: fewer tests than characters and the smallest result
    assert tests["hdd"] < tests["chars"] and tests["auto"] < tests["chars"]
    assert min(tokens["hdd"], tokens["auto"]) == min(tokens.values())
    for other in ("lines", "chars", "tokens"):
        assert tokens["hdd"] < tokens[other] and tokens["auto"] < tokens[other]


def test_curves_run_from_the_input_to_the_result(markup_rows: list[ComparisonRow]) -> None:
    for row in markup_rows:
        assert row.curve[0] == (0, 85), row.strategy
        assert row.curve[-1] == (row.tests, row.tokens), row.strategy
        assert all(
            a[0] <= b[0] and a[1] >= b[1] for a, b in zip(row.curve, row.curve[1:])
        ), row.strategy
        # ddmin's progress inside its single pass shows, not only the step at its end
        assert len(row.curve) >= 4, row.strategy


def test_expression_tree_reduction_needs_ten_times_fewer_tests_than_characters() -> None:
    bench = load_bench()
    text = bench.program()
    assert sum(isinstance(node, ast.BinOp) for node in ast.walk(ast.parse(text))) > 100
    assert "(3 - 3)" in text and bench.is_arithmetic_program(text)
    oracle = bench.ArithmeticOracle(InProcessOracle("ZeroDivisionError"))
    rows = by_name(compare(text, oracle, ("chars", "flat", "hdd", "auto")))
    chars = rows["chars"]
    assert chars.tests is not None and chars.tokens is not None and chars.verified
    for name in ("hdd", "auto"):
        tree = rows[name]
        assert tree.tests is not None and tree.tokens is not None and tree.verified
        assert chars.tests >= bench.RATIO * tree.tests, (name, tree.tests, chars.tests)
        assert tree.tokens < chars.tokens, (name, tree.text, chars.text)
        assert bench.is_arithmetic_program(tree.text or "")


def test_expression_checker_accepts_only_arithmetic_programs() -> None:
    bench = load_bench()
    assert bench.is_arithmetic_program("print((1 / (3 - 3)) * 2)\n")
    for text in (
        "print(1 / 0",
        "0(1 / 0)",
        "print(1 / 0, 2)",
        "(1 / 0)",
        "print(-1 / 0)",
        "print(1.5 / 0)",
        "print(1 // 0)",
        "x = print(1 / 0)",
        "print(1 / 0)\nprint(2)",
    ):
        assert not bench.is_arithmetic_program(text), text
    # the same seed gives the same expression; another seed another one
    assert bench.program(7) == bench.program(7) != bench.program(8)


# --- inputs that are not Python ----------------------------------------------------------


def test_text_that_does_not_parse_skips_the_tree_strategies(tmp_path: Path) -> None:
    rng = random.Random(26)
    noise = "".join(rng.choice("abcdefgh{}[<>;:'\"#=+") for _ in range(24))
    text = noise[:9] + "()" + noise[9:]  # 26 characters, as in the literature
    rows = by_name(compare(text, ParenthesesOracle(), DEFAULT_STRATEGIES))
    assert rows["chars"].text == "()"
    assert (rows["chars"].tests or 0) <= 40  # the literature: about 24 tests
    for name in ("flat", "hdd", "auto"):
        assert rows[name].is_skipped and "does not parse" in rows[name].note
    for name in ("lines", "tokens"):
        assert not rows[name].is_skipped and "()" in (rows[name].text or "")
    table = render_table(list(rows.values()), text)
    assert "skipped: candidate.py:1:5: does not parse: invalid syntax" in table
    assert table.splitlines()[0].split()[-1] == "note"
    labels = plot_comparison(list(rows.values()), tmp_path / "paren.png", title="parentheses")
    assert [label.split(":")[0] for label in labels] == list(DEFAULT_STRATEGIES)


def test_unknown_or_repeated_strategies_are_usage_errors() -> None:
    with pytest.raises(UsageError, match="unknown strategy 'words'"):
        compare("()", ParenthesesOracle(), ["chars", "words"])
    with pytest.raises(UsageError, match="named twice"):
        compare("()", ParenthesesOracle(), ["chars", "chars"])


# --- tables and plots ----------------------------------------------------------------------


def test_tables_plain_and_markdown(markup_rows: list[ComparisonRow]) -> None:
    text = (MARKUP / "input.py").read_text(encoding="utf-8")
    plain = render_table(markup_rows, text).splitlines()
    assert plain[0].split() == [
        "strategy",
        "tests",
        "cache",
        "hits",
        "seconds",
        "bytes",
        "lines",
        "tokens",
        "AST",
        "nodes",
        "verified",
        "ended",
    ]
    assert plain[2].split() == ["input", "594", "19", "85", "121"]
    assert [line.split()[0] for line in plain[3:]] == list(DEFAULT_STRATEGIES)
    markdown = render_table(markup_rows, text, "markdown").splitlines()
    assert (
        markdown[0]
        == "| strategy | tests | cache hits | seconds | bytes | lines | tokens | AST nodes | verified | ended |"
    )
    assert markdown[1].startswith("| --- | ---: |")
    assert len(markdown) == 3 + len(DEFAULT_STRATEGIES)
    assert all(line.count("|") == 11 for line in markdown)
    assert all(line.split("|")[-2].strip() == "finished" for line in markdown[2 + 1:])


def test_plot_is_a_png_with_every_strategy_in_its_legend(
    markup_rows: list[ComparisonRow], tmp_path: Path
) -> None:
    path = tmp_path / "compare.png"
    labels = plot_comparison(markup_rows, path, title="input.py", subtitle="oracle", log_x=True)
    data = path.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    assert b"IHDR" in data[: 16 + 8] and b"IEND" in data[-12:]
    assert b"Software\x00Matplotlib" in data  # matplotlib's tEXt chunk: matplotlib wrote it
    assert len(data) < 100_000
    assert [label.split(":")[0] for label in labels] == list(DEFAULT_STRATEGIES)
    for row, label in zip(markup_rows, labels):
        assert f"{row.tests:,} tests" in label and f"{row.tokens:,} tokens" in label


def test_svg_plot_keeps_title_axes_and_legend_as_text(
    markup_rows: list[ComparisonRow], tmp_path: Path
) -> None:
    path = tmp_path / "compare.svg"
    labels = plot_comparison(
        markup_rows, path, title="Reducing input.py", subtitle="oracle: My Test"
    )
    texts = {
        "".join(element.itertext()).strip()
        for element in ElementTree.parse(path).iter()
        if element.tag.endswith("}text")
    }
    for label in labels:
        assert label in texts
    assert "tests (oracle runs)" in texts and "size of the best candidate (Python tokens)" in texts
    assert any("Reducing input.py" in text for text in texts)
    with pytest.raises(UsageError, match=r"must end in \.png"):
        plot_comparison(markup_rows, tmp_path / "compare.gif", title="x")


# --- the command ----------------------------------------------------------------------------


def test_cli_writes_table_csv_json_and_plot(
    markup_rows: list[ComparisonRow], tmp_path: Path
) -> None:
    out = {suffix: tmp_path / f"compare.{suffix}" for suffix in ("csv", "json", "png")}
    result = CliRunner().invoke(
        compare_command,
        [
            str(MARKUP / "input.py"),
            *MARKUP_ARGS,
            "--strategy",
            "lines",
            "--strategy",
            "hdd",
            "-j",
            "1",
            "--markdown",
            "-q",
            "--csv",
            str(out["csv"]),
            "--report",
            str(out["json"]),
            "--plot",
            str(out["png"]),
        ],
    )
    assert result.exit_code == 0, result.output
    table = result.stdout.splitlines()
    assert table[0].startswith("| strategy | tests |")
    assert [line.split("|")[1].strip() for line in table[2:]] == ["input", "lines", "hdd"]
    with out["csv"].open(newline="", encoding="utf-8") as file:
        records = list(csv.DictReader(file))
    assert [r["strategy"] for r in records] == ["lines", "hdd"]
    data = json.loads(out["json"].read_text(encoding="utf-8"))
    assert data["input"]["tokens"] == 85 and "AssertionError('My Test')" in data["oracle"]
    assert [r["strategy"] for r in data["rows"]] == ["lines", "hdd"]
    expected = by_name(markup_rows)
    for record, row in zip(records, data["rows"]):
        # the exec oracle and the in-process one judge alike: the same candidates, the same
        # results; the exec oracle runs fewer of them (a candidate with the byte code of
        # one already run, such as one with redundant parentheses, is a cache hit there,
        # and one that does not compile is UNRESOLVED without a test)
        same = expected[record["strategy"]]
        assert int(record["tests"]) == row["tests"] <= same.tests
        assert row["tests"] + row["cache_hits"] <= same.tests + same.cache_hits
        assert int(record["tokens"]) == row["tokens"] == same.tokens
        assert record["verified"] == "True" and row["verified"] is True
        assert row["output"] == same.text
        assert [p[1] for p in row["curve"]] == [p[1] for p in same.curve]
    assert out["png"].read_bytes().startswith(PNG_SIGNATURE)


def test_cli_plain_table_off_a_terminal_and_progress_on_stderr(tmp_path: Path) -> None:
    path = tmp_path / "boom.py"
    path.write_text("x = 1\nraise ValueError('boom')\n", encoding="utf-8")
    result = CliRunner().invoke(compare_command, [str(path), "--strategy", "lines", "--strategy", "flat"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split()[:2] == ["strategy", "tests"] and set(lines[1]) <= {"-", " "}
    assert [line.split()[0] for line in lines[2:]] == ["input", "lines", "flat"]
    assert lines[3].split()[-6:] == ["25", "1", "5", "6", "yes", "finished"]  # raise ValueError('boom')
    progress = [line for line in result.stderr.splitlines() if re.match(r"\w+: \d+ tests, ", line)]  # each strategy's end
    assert all(re.match(r"(lines|flat): \[ *[\d.]+s\] ", line) for line in result.stderr.splitlines() if line not in progress)
    assert [line.split(":")[0] for line in progress] == ["lines", "flat"]
    assert all(" tests, 5 tokens, " in line for line in progress)


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (
            ["--strategy", "words"],
            2,
            "astreduce: unknown strategy 'words'; choose from lines,tokens,flat,hdd,auto,chars",
        ),
        (
            ["--plot", "out.gif"],
            2,
            "astreduce: --plot out.gif: the file name must end in .png, .svg, .pdf",
        ),
        (
            ["--csv", "no/such/dir/out.csv"],
            2,
            "astreduce: no/such/dir/out.csv: the CSV file's folder no/such/dir does not exist",
        ),
        (
            ["--expect", "KeyError"],
            1,
            "astreduce: input does not reproduce: expected KeyError, got ValueError('boom')",
        ),
    ],
)
def test_cli_errors_are_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], code: int, message: str
) -> None:
    path = tmp_path / "boom.py"
    path.write_text("raise ValueError('boom')\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(compare_command, [str(path), *args])
    assert result.exit_code == code
    assert result.stderr.strip() == message
    assert result.stdout == ""


def _slow_module() -> str:
    """Two hundred removable lines around a failure."""
    lines = [f"junk_{i} = {i}" for i in range(200)]
    lines.append('raise ValueError("My Test")')
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_keeps_the_rows_so_far_and_exits_130(tmp_path: Path, signum: int) -> None:
    """A real signal to a running ``astreduce compare``: exit 130, the JSON holds the interrupted
    strategy's best result so far, which still reproduces; the input is untouched.

    The oracle is an interestingness script that sleeps 0.2 s a test, so character ddmin is
    still running when the signal comes."""
    import os
    import subprocess
    import time

    source = _slow_module()
    (tmp_path / "slow.py").write_text(source)
    script = tmp_path / "check.sh"
    marks = tmp_path / "marks"  # each test leaves a line here: the search is under way after the original's runs
    marks.mkdir()
    script.write_text(f'#!/bin/sh\necho x >> "{marks}/runs"\nsleep 0.2\n"{sys.executable}" "$1" 2>&1 | grep -q "ValueError: My Test"\n')
    script.chmod(0o755)
    process = subprocess.Popen(
        [sys.executable, "-m", "astreduce", "compare", "slow.py", "--test", str(script),
         "--strategy", "chars", "--strategy", "lines", "-j", "1", "--report", "out.json", "--allow-write", str(marks)],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        deadline = time.monotonic() + 120
        runs = marks / "runs"
        # three runs of the original, then a dozen of the search's, whatever the machine's load
        while time.monotonic() < deadline and (not runs.exists() or len(runs.read_text().splitlines()) < 15):
            time.sleep(0.1)
        process.send_signal(signum)
        _, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130, stderr
    assert "interrupted; the table holds the strategies run so far" in stderr
    rows = json.loads((tmp_path / "out.json").read_text())["rows"]
    assert [row["strategy"] for row in rows] == ["chars"] and rows[0]["note"] == "interrupted"
    assert rows[0]["ended"] == "interrupted"
    best = rows[0]["output"]
    assert len(best) < len(source)
    namespace: dict[str, object] = {"__name__": "__main__"}
    with pytest.raises(ValueError, match="^My Test$"):
        exec(compile(best, "best.py", "exec"), namespace)
    assert (tmp_path / "slow.py").read_text() == source
