"""``astreduce slice``: critical slices of a run (STRIPE), by real runs of real programs.

What is shown here:

* the paper's example ported to Python (``corpora/slice/stripe_sum_product``):
  the slices for the whole output, the sum only and the product only are the
  expected three, differ, the product's holds no statement of the sum and the
  other way round, each within the paper's 176 tests;
* the traced child: which statements are events, that a multi-line statement,
  ``a = 1; b = 2``, a resumed generator count once per execution, that
  skipping works at the end of a loop body, in a function, after decorators,
  under the oldest and the newest interpreter; a run that leaves the recorded
  run, hangs or crashes is UNRESOLVED;
* the search: ``-j 1`` and ``-j 2`` give the same slice and test count;
  ``--include``, ``--expect``, ``--append``; a stop request keeps the smallest
  reproducing set;
* the command: the listing, ``--report``, ``--plot``, exit statuses and one-line errors.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import astreduce
from astreduce.cli import run as cli_run
from astreduce.cli.slice import slice_command
from astreduce.errors import NotReproducibleError, ReductionStopped, UsageError
from astreduce.interpreters import resolve_python
from astreduce.oracles.options import OracleOptions
from astreduce.outcome import Outcome
from astreduce.search.session import StopRequest
from astreduce.slicing import SliceResult, slice_run
from astreduce.slicing.listing import mark, render_listing
from astreduce.slicing.runs import ChildRun, Criterion, Launcher, SliceOracle, encode, record

REPO = Path(__file__).resolve().parent.parent
CASE = REPO / "corpora" / "slice" / "stripe_sum_product"
SPEC = json.loads((CASE / "case.json").read_text(encoding="utf-8"))


def marks(result: SliceResult) -> str:
    """The slice's events as the listing marks them, by line."""
    return " ".join(mark(line, occurrence) for _, line, occurrence in sorted(result.events))


# --- the paper's example ----------------------------------------------------------------


class PaperSlices:
    """The example's slices, each searched once, when a test first asks for it."""

    def __init__(self) -> None:
        self.found: dict[str, SliceResult] = {}

    def __getitem__(self, name: str) -> SliceResult:
        if name not in self.found:
            args = next(c["args"] for c in SPEC["slice"] if c["name"] == name)
            options = OracleOptions(stdout=args[1]) if args else OracleOptions()
            self.found[name] = slice_run(CASE / SPEC["program"], options, stdin=CASE / SPEC["stdin"], jobs=2)
        return self.found[name]


@pytest.fixture(scope="module")
def paper_slices() -> PaperSlices:
    return PaperSlices()


def _case(case: dict[str, object]) -> object:
    # the whole output's search (161 tests) is the longest: the quick run checks its slice below
    return pytest.param(case, id=str(case["name"]), marks=[pytest.mark.slow] if not case["args"] else [])


@pytest.mark.parametrize("case", [_case(c) for c in SPEC["slice"]])
def test_paper_example_gives_the_expected_slice(paper_slices: PaperSlices, case: dict[str, object]) -> None:
    result = paper_slices[str(case["name"])]
    assert result.verified and not result.interrupted
    assert len(result.trace) == SPEC["trace_length"]
    assert marks(result) == case["events"]
    assert result.tests == case["tests"]
    assert result.tests <= SPEC["paper_tests"]
    assert [v.name for v in result.levels] == ["lines", "events"]
    assert sum(v.tests for v in result.levels) == result.tests


def test_paper_example_whole_output_slice_reproduces_and_is_1_minimal() -> None:
    """The whole output's slice of ``case.json`` FAILs, and without any one of its events it does not."""
    launcher = Launcher(CASE / SPEC["program"], python=sys.executable, stdin=CASE / SPEC["stdin"])
    try:
        original = record(launcher, None)
        oracle = SliceOracle(launcher, original, Criterion(), None)
        expected = next(c["events"] for c in SPEC["slice"] if not c["args"]).split()
        kept = [i for i, (_, line, occurrence) in enumerate(original.events) if mark(line, occurrence) in expected]
        assert len(kept) == len(expected)
        candidates = [kept] + [[i for i in kept if i != j] for j in kept]
        pending = [oracle.start(encode(c)) for c in candidates]  # at once: they are independent
        outcomes = [p.wait().outcome for p in pending]
        assert outcomes[0] is Outcome.FAIL
        assert Outcome.FAIL not in outcomes[1:]
    finally:
        launcher.close()


def test_paper_example_slices_differ_and_keep_apart(paper_slices: PaperSlices) -> None:
    total, product = paper_slices["sum only"], paper_slices["product only"]
    whole = next(c["events"] for c in SPEC["slice"] if not c["args"])
    assert len({whole, marks(total), marks(product)}) == 3
    sum_lines, product_lines = {3, 6, 9}, {4, 7, 10}  # total = 0, total += a, print(sum); and the product's
    kept_by_sum = {line for _, line, _ in total.events}
    kept_by_product = {line for _, line, _ in product.events}
    assert not kept_by_product & sum_lines
    assert not kept_by_sum & product_lines
    assert set(whole.split()) >= set(marks(total).split()) | set(marks(product).split())


# --- the traced child -------------------------------------------------------------------


def _program(tmp_path: Path, source: str) -> Path:
    path = tmp_path / "prog.py"
    path.write_text(source, encoding="utf-8")
    return path


def _record(tmp_path: Path, source: str, python: str = sys.executable) -> tuple[Launcher, ChildRun]:
    launcher = Launcher(_program(tmp_path, source), python=python)
    return launcher, record(launcher, None)


def _skipping(tmp_path: Path, source: str, skipped: list[tuple[int, int]], python: str = sys.executable) -> ChildRun:
    """The program's run with the executions ``(line, occurrence)`` skipped."""
    launcher, original = _record(tmp_path, source, python)
    try:
        oracle = SliceOracle(launcher, original, Criterion(), None)
        skip = [(0, line, occurrence) for line, occurrence in skipped]
        assert set(skip) <= set(original.events), "skip only recorded events"
        return launcher.start("test", skip, 10.0, oracle.budget, oracle.bounds).wait()
    finally:
        launcher.close()


LOOP = """\
a, b = 0, 3
total = 0
while a <= b:
    total += a
    a += 1
print(total)
"""


def _interpreters() -> list[str]:
    found = []
    for version in ("3.8", "3.13"):
        try:
            found.append(resolve_python(version))
        except UsageError:
            pass
    return found or [sys.executable]


@pytest.mark.parametrize("python", _interpreters())
def test_skipping_the_last_statement_of_a_loop_body(tmp_path: Path, python: str) -> None:
    launcher, original = _record(tmp_path, LOOP, python)
    launcher.close()
    assert [(n, o) for _, n, o in original.events] == [(1, 1), (2, 1)] + [(n, o) for o in range(1, 5) for n in (4, 5)] + [(6, 1)]
    assert original.stdout == "6\n"
    # 4₂ skipped: 1 is not added; 5₄ skipped: the loop would run a step more than recorded
    assert _skipping(tmp_path, LOOP, [(4, 2)], python).stdout == "5\n"
    assert _skipping(tmp_path, LOOP, [(5, 4)], python).ending == "diverged"


def test_units_multi_line_statements_semicolons_generators_decorators_lambdas(tmp_path: Path) -> None:
    source = """\
import functools
values = [
    1,
    2,
]
x = 1; y = 2
def gen():
    got = yield 1
    yield got
g = gen(); first = next(g)
second = g.send(5)
@functools.lru_cache
def f(n):
    return (lambda k:
        k + 1)(n)
for i in range(2):
    pass
print(f(x), y, first, second, sum(values))
"""
    launcher, original = _record(tmp_path, source)
    launcher.close()
    assert original.stdout == "2 2 1 5 3\n"
    units = [(n, o) for _, n, o in original.events]
    # the list spanning lines 2-5, ``x = 1; y = 2``, the generator's ``got = yield 1`` (resumed
    # once) count once each; ``def`` (with its decorator), ``for``, ``pass`` and ``return``
    # (with its lambda) are no events
    assert units == [(1, 1), (2, 1), (6, 1), (10, 1), (8, 1), (11, 1), (9, 1), (18, 1)]
    # skipping ``x = 1; y = 2`` skips both: NameError
    assert _skipping(tmp_path, source, [(6, 1)]).exception == "NameError"
    # a generator's statement skipped: ``got`` is never bound
    assert _skipping(tmp_path, source, [(8, 1)]).exception == "UnboundLocalError"


def test_a_crash_a_hang_and_another_exception_are_unresolved(tmp_path: Path) -> None:
    source = """\
import os, signal
sig = signal.SIGSEGV
sig = 0
os.kill(os.getpid(), sig)
spin = 0
spin = 1
while not spin:
    pass
table = {}
table = {"k": 1}
table["k"]
print("done")
"""
    launcher, original = _record(tmp_path, source)
    try:
        oracle = SliceOracle(launcher, original, Criterion(), 10.0)
        index = {(n, o): i for i, (_, n, o) in enumerate(original.events)}
        everything = list(range(len(original.events)))

        def without(line: int) -> tuple[Outcome, str]:
            verdict = oracle.judge(encode([i for i in everything if i != index[line, 1]]))
            return verdict.outcome, verdict.run.ending

        assert oracle.judge(encode(everything)).outcome is Outcome.FAIL
        assert without(3) == (Outcome.UNRESOLVED, "crash")
        assert without(6) == (Outcome.UNRESOLVED, "timeout")  # the line budget, not the timeout
        assert without(10) == (Outcome.UNRESOLVED, "exception")
        assert without(12) == (Outcome.PASS, "ok")
    finally:
        launcher.close()


# --- the search -------------------------------------------------------------------------

SMALL = """\
import sys
a = int(sys.argv[0] != "") + 1
b = 10
c = a * 2
d = b - 1
print(c)
"""


def test_same_slice_and_tests_for_every_j(tmp_path: Path) -> None:
    program = _program(tmp_path, SMALL)
    one, two = (slice_run(program, OracleOptions(stdout="^4$"), jobs=j) for j in (1, 2))
    assert marks(one) == marks(two) == "1₁ 2₁ 4₁ 6₁"
    assert one.tests == two.tests


def test_include_expect_and_append(tmp_path: Path) -> None:
    (tmp_path / "helper.py").write_text(
        "def scale(values, factor):\n    out = []\n    for v in values:\n        out.append(v * factor)\n"
        "    factor = 0\n    return out\n",
        encoding="utf-8",
    )
    program = _program(tmp_path, "import helper\nnoise = [9]\ndata = helper.scale([1, 2], 3)\nprint(data)\n")
    (tmp_path / "check.py").write_text("assert data != [3, 6], 'scaled'\n", encoding="utf-8")
    options = OracleOptions(expect="AssertionError:scaled", append=(tmp_path / "check.py").read_text())
    result = slice_run(program, options, include=["helper"])
    assert result.verified
    # ``noise``, ``factor = 0`` and the ``print`` go; ``return out`` is control flow, never an event
    assert [(f, n) for f, n, _ in result.events] == [(0, 1), (0, 3), (1, 2), (1, 4), (1, 4)]
    assert result.report()["events"] == [[1, 1], [3, 1], [2, 1, "helper"], [4, 1, "helper"], [4, 2, "helper"]]
    listing = render_listing(result)
    assert "==> helper (" in listing and "4₁ 4₂" in listing
    assert "assert" not in listing  # the appended script is no part of the program


def test_stop_request_keeps_the_smallest_reproducing_set(tmp_path: Path) -> None:
    program = _program(tmp_path, SMALL)
    stop = StopRequest()
    stop.requested = True  # asked before the search: it stops before its first test
    with pytest.raises(ReductionStopped) as stopped:
        slice_run(program, OracleOptions(stdout="^4$"), stop=stop)
    result = stopped.value.result
    assert isinstance(result, SliceResult) and result.interrupted and result.verified
    assert len(result.kept) == len(result.trace)


def test_api_is_exported() -> None:
    assert astreduce.slice_run is slice_run


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (OracleOptions(run="true"), "--run: not for slice"),
        (OracleOptions(stdout="("), "--stdout '(': not a valid regular expression"),
        (OracleOptions(expect=" "), "--expect needs an exception name"),
    ],
)
def test_options_a_slice_refuses(tmp_path: Path, options: OracleOptions, message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(")):
        slice_run(_program(tmp_path, SMALL), options)


def test_not_reproducible(tmp_path: Path) -> None:
    with pytest.raises(NotReproducibleError, match="does not reproduce: wanted stdout matches /5/, got no exception"):
        slice_run(_program(tmp_path, SMALL), OracleOptions(stdout="5"))


# --- the command ------------------------------------------------------------------------


def test_command_listing_report_and_plot(tmp_path: Path) -> None:
    report, plot = tmp_path / "r.json", tmp_path / "run.svg"
    result = CliRunner().invoke(
        slice_command,
        [str(_program(tmp_path, SMALL)), "--stdout", "^4$", "--report", str(report), "--plot", str(plot), "-j", "2"],
    )
    assert result.exit_code == 0, result.output
    assert re.search(r"^4  c = a \* 2 +4₁$", result.stdout, re.MULTILINE)
    assert "5  d = b - 1\n" in result.stdout
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["events"] == [[1, 1], [2, 1], [4, 1], [6, 1]]
    assert data["trace_length"] == 6 and data["tests"] == len(data["runs"]) > 0
    svg = plot.read_text(encoding="utf-8")
    assert "slice" in svg and "✘" in svg


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (["missing.py"], 2, "cannot read missing.py"),
        (["{prog}", "--input", "nope.txt"], 2, "--input nope.txt: no such file"),
        (["{prog}", "--python", "2.7"], 2, "slice runs programs under Python 3.8 or newer"),
        (["{prog}", "--plot", "out.txt"], 2, "must end in .png, .svg, .pdf"),
        (["{prog}", "--expect", "KeyError"], 1, "does not reproduce: wanted raises KeyError, got no exception"),
        (["{bad}"], 2, "does not parse"),
        (["{prog}", "--include", "nosuchmodule"], 2, "--include nosuchmodule: the run never imported it"),
    ],
)
def test_command_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], status: int, message: str) -> None:
    monkeypatch.chdir(tmp_path)
    if "2.7" in args:
        try:
            resolve_python("2.7")
        except UsageError:
            pytest.skip("no Python 2.7 here")
    program = _program(tmp_path, SMALL)
    bad = tmp_path / "bad.py"
    bad.write_text("x = (\n", encoding="utf-8")
    filled = [a.format(prog=program, bad=bad) for a in args]
    runner = CliRunner()
    result = runner.invoke(slice_command, filled)
    assert result.exit_code == status
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert cli_run(["slice", *filled]) == status


def test_command_budget_verbose_and_resume(tmp_path: Path) -> None:
    """The search options of ``reduce`` on ``slice`` (issue 47): ``--max-tests`` ends with the smallest reproducing
    set so far (exit 0), ``-v`` numbers each test counted, and ``--resume`` runs no configuration twice."""
    program = str(_program(tmp_path, SMALL))
    cache = ["--resume", "--cache-dir", str(tmp_path / "cache")]
    first = CliRunner().invoke(slice_command, [program, "--stdout", "^4$", "--max-tests", "2", "-v", "--report", str(tmp_path / "a.json"), *cache])
    assert first.exit_code == 0, first.output
    stopped = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))
    assert stopped["budget_ended"] is True and stopped["tests"] == 2 and stopped["verified"]
    assert re.findall(r"^test (\d+): ", first.stderr, re.MULTILINE) == ["1", "2"]
    assert "--max-tests or --max-time ended the search" in first.stderr
    again = CliRunner().invoke(slice_command, [program, "--stdout", "^4$", "--report", str(tmp_path / "b.json"), *cache])
    assert again.exit_code == 0, again.output
    whole = json.loads((tmp_path / "b.json").read_text(encoding="utf-8"))
    fresh = slice_run(_program(tmp_path, SMALL), OracleOptions(stdout="^4$"))
    assert whole["resumed"] == 2 and whole["tests"] + 2 == fresh.tests and whole["budget_ended"] is False
    assert whole["events"] == [[1, 1], [2, 1], [4, 1], [6, 1]]
