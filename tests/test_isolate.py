"""``astreduce isolate``: changes between two versions, the search over them by levels, the command.

What is shown here:

* the changes of every granularity turn OLD into NEW exactly, and any subset
  of them applies (hand-written situations and real standard-library
  releases);
* on real releases of real modules (``corpora/isolate/``: two releases from
  the pyenv installs, one check, one interpreter) the isolated changes,
  applied alone to OLD with ``patch``, reproduce the failure when run, and
  the passing version lies within the failing one; the figures go to the
  terminal as a table (statements too with ``pytest -m slow``);
* a change that uses a name another change introduces: the result fails and
  holds both;
* the command's output, files, report and one-line errors; packages
  (directories) with ``--entry`` and with ``--run``.
"""

from __future__ import annotations

import difflib
import importlib.util
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from click.testing import CliRunner

from astreduce.cli.isolate import isolate_command
from astreduce.errors import NotReproducibleError, ReductionStopped, UsageError
from astreduce.files import read_tree
from astreduce.isolate import (
    GRANULARITIES,
    Change,
    Granularity,
    IsolationResult,
    apply_changes,
    changed_lines,
    file_changes,
    isolate,
    isolate_paths,
    line_changes,
    one_line_changes,
    statement_changes,
    tree_changes,
    unified_diff,
)
from astreduce.oracles import Oracle, Verdict
from astreduce.run import Run
from astreduce.oracles.options import OracleOptions, Original, build_oracle
from astreduce.outcome import Outcome

REPO = Path(__file__).resolve().parent.parent
CASES_ROOT = REPO / "corpora" / "isolate"


def _load_build() -> ModuleType:
    """Import ``corpora/isolate/build.py`` by path: ``corpora`` is data, not a package."""
    spec = importlib.util.spec_from_file_location("isolate_build", CASES_ROOT / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look the defining module up
    spec.loader.exec_module(module)
    return module


build = _load_build()
CASES = build.load_cases()
RELEASE_CASES = [case for case in CASES if case.is_release]
DEPENDENCY = next(case for case in CASES if case.name == "helper_dependency")
PATCH = shutil.which("patch")


# --- helpers --------------------------------------------------------------------------------


def built(case: Any, folder: Path) -> tuple[Path, Path, Path]:
    """Build ``case`` into ``folder``; skip the test when a release is not installed."""
    try:
        paths: tuple[Path, Path, Path] = build.build(case, folder)
    except build.MissingRelease as missing:
        pytest.skip(str(missing))
    return paths


def exec_oracle(new_text: str, check: str, filename: str) -> Oracle:
    """The exec oracle calibrated on NEW (its exception is the target), ``check`` appended."""
    return build_oracle(OracleOptions(append=check), Original(new_text, filename))


def patched(folder: Path, files: dict[str, str], diff: str) -> dict[str, str]:
    """``files`` written to ``folder``, ``diff`` applied there with ``patch -p1``, read back."""
    if PATCH is None:
        pytest.skip("the patch program is not installed")
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    done = subprocess.run(
        [PATCH, "-p1", "--batch", "--silent", "-d", str(folder)],
        input=diff,
        text=True,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return read_tree(folder)


def run_python(program: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", program], cwd=cwd, capture_output=True, text=True, check=False, timeout=60
    )


# --- changes --------------------------------------------------------------------------------

#: Situations for the alignment of statement trees: (OLD, NEW).
PAIRS: dict[str, tuple[str, str]] = {
    "function_body": (
        "def f(x):\n    a = 1\n    return x + a\n",
        "def f(x):\n    a = 2\n    return x + a\n",
    ),
    "added_and_removed_defs": (
        "import os\n\n\ndef a():\n    pass\n\n\ndef b():\n    return 1\n",
        "import os\nimport re\n\n\ndef b():\n    return 1\n\n\ndef c():\n    return 2\n",
    ),
    "methods_and_decorators": (
        "class C:\n    x = 1\n\n    @staticmethod\n    def m():\n        return 1\n\n    def n(self):\n        return 2\n",
        "class C(object):\n    x = 1\n\n    @classmethod\n    def m(cls):\n        return 1\n\n    def n(self):\n        # two\n        return 3\n",
    ),
    "if_elif_else": (
        "if a:\n    x = 1\nelif b:\n    x = 2\nelse:\n    x = 3\n",
        "if a:\n    x = 1\nelif b:\n    x = 20\n    y = 1\n# comment\nelse:\n    x = 3\n",
    ),
    "else_becomes_elif": (
        "if a:\n    x = 1\nelse:\n    x = 3\n",
        "if a:\n    x = 1\nelif b:\n    x = 3\n",
    ),
    "try_handlers_finally": (
        "try:\n    f()\nexcept ValueError as e:\n    g(e)\nexcept OSError:\n    pass\nfinally:\n    h()\n",
        "try:\n    f()\n    f()\nexcept ValueError as e:\n    g(e, 1)\nexcept OSError:\n    raise\nfinally:\n    h()\n",
    ),
    "one_line_blocks_and_semicolons": (
        "if x: y = 1\na = 1; b = 2\nfor i in r: pass\n",
        "if x: y = 2\na = 1; b = 3\nfor i in r: print(i)\n",
    ),
    "comments_and_blank_lines": (
        "# head\nx = 1\n\n\n# about y\ny = 2\n# tail\n",
        "# head, changed\nx = 1\n\n# about y, changed\ny = 2\n\n# tail\n# more\n",
    ),
    "no_final_newline": ("x = 1\ny = 2", "x = 1\ny = 3"),
    "empty_old": ("", "x = 1\n"),
    "only_comments": ("# nothing\n", "# something\nx = 1\n"),
    "nested_functions_and_async": (
        "def outer():\n    def inner():\n        return 1\n    return inner\n\n\nasync def g():\n    await x\n",
        "def outer():\n    def inner():\n        return 2\n    return inner()\n\n\nasync def g():\n    await y\n",
    ),
    "multiline_statements": (
        "x = f(\n    1,\n    2,\n)\ndef g(a,\n      b):\n    return a\n",
        "x = f(\n    1,\n    3,\n)\ndef g(a,\n      c):\n    return a\n",
    ),
    "match_statement": (
        "match p:\n    case 1:\n        x = 1\n    case _:\n        x = 2\n",
        "match p:\n    case 1:\n        x = 10\n    case _:\n        x = 2\n",
    ),
    "does_not_parse": ("def f(:\n    pass\n", "def f():\n    pass\n"),
}


@pytest.mark.parametrize("granularity", GRANULARITIES)
@pytest.mark.parametrize("name", sorted(PAIRS))
def test_all_changes_give_new_any_subset_applies(name: str, granularity: Granularity) -> None:
    old, new = PAIRS[name]
    changes = file_changes(old, new, granularity, "m.py")
    assert changes
    assert apply_changes({"m.py": old}, changes)["m.py"] == new
    assert apply_changes({"m.py": old}, [])["m.py"] == old
    rng = random.Random(name)
    for _ in range(20):
        subset = [c for c in changes if rng.random() < 0.5]
        shuffled = rng.sample(subset, len(subset))
        assert apply_changes({"m.py": old}, shuffled) == apply_changes({"m.py": old}, subset)


def test_statement_changes_follow_the_syntax_tree() -> None:
    old, new = PAIRS["methods_and_decorators"]
    changes = statement_changes(old, new, "m.py")
    assert changes is not None
    labels = [c.label for c in changes]
    # the class header, the decorator and signature of m, and one statement inside n
    assert labels == [
        "header of `class C:` (line 1, in C)",
        "header of `@staticmethod` (line 4, in C.m)",
        "replaced `return 2` (line 9, in C.n)",
    ]
    grouped = statement_changes(old, new, "m.py", by_function=True)
    assert grouped is not None
    assert [c.label for c in grouped] == [labels[0], labels[1], labels[2]]


def test_functions_group_every_change_inside_a_function() -> None:
    old = "def f():\n    a = 1\n    b = 2\n    c = 3\n    d = 4\n    return a\n\n\nX = 1\nY = 2\n"
    new = "def f():\n    a = 10\n    b = 2\n    c = 3\n    d = 40\n    return a\n\n\nX = 1\nY = 20\n"
    assert len(line_changes(old, new)) == 3
    assert len(file_changes(old, new, "statements")) == 3
    functions = file_changes(old, new, "functions")
    assert [c.label for c in functions] == ["def f: 2 changes", "replaced `Y = 2` (line 10, in module)"]


def test_module_level_runs_are_one_group() -> None:
    old = "A = 1\nB = 2\n\n\ndef f():\n    return A\n"
    new = "A = 1\nimport enum\nclass B(enum.IntEnum):\n    X = 2\n\n\ndef f():\n    return A\n"
    functions = file_changes(old, new, "functions")
    assert len(functions) == 1 and functions[0].label.startswith("module: statements from line 2")
    # `B = 2` and `import enum` share no word: removed and added, not paired as an edit
    assert [c.label for c in file_changes(old, new, "statements")] == [
        "removed `B = 2` (line 2, in module)",
        "added `import enum` (before line 3, in module)",
        "added `class B(enum.IntEnum):` (before line 3, in module)",
    ]


def test_a_version_that_does_not_parse_is_compared_by_lines() -> None:
    old, new = PAIRS["does_not_parse"]
    assert statement_changes(old, new) is None
    assert [c.label for c in file_changes(old, new, "functions")] == [
        c.label for c in line_changes(old, new)
    ]


def test_trees_change_by_file_and_diff_as_patch_p1(tmp_path: Path) -> None:
    old = {"a.py": "x = 1\n", "pkg/b.py": "y = 2\n", "gone.txt": "bye\n"}
    new = {"a.py": "x = 2\n", "pkg/b.py": "y = 2\n", "pkg/c.py": "z = 3\n"}
    changes = tree_changes(old, new)
    assert [(c.path, c.label) for c in changes] == [
        ("a.py", "file changed"),
        ("gone.txt", "file removed"),
        ("pkg/c.py", "file added"),
    ]
    assert apply_changes(old, changes) == new
    assert patched(tmp_path / "tree", old, unified_diff(old, new)) == new


@pytest.mark.parametrize("seed", range(4))
def test_unified_diff_is_difflibs_format_without_junk(seed: int) -> None:
    """Below 200 lines (no junk heuristic) the diff is :func:`difflib.unified_diff`'s, byte for byte."""
    rng = random.Random(seed)
    for _ in range(300):
        a = [rng.choice("abcde\n") + "\n" for _ in range(rng.randrange(0, 30))]
        b = list(a)
        for _ in range(rng.randrange(1, 6)):
            where = rng.randrange(len(b) + 1)
            if rng.random() < 0.5 and where < len(b):
                del b[where]
            else:
                b.insert(where, rng.choice("abxyz") + "\n")
        old, new = "".join(a), "".join(b).rstrip("\n") if rng.random() < 0.2 else "".join(b)
        reference = "".join(
            line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
            for line in difflib.unified_diff(old.splitlines(True), new.splitlines(True), "a/f.py", "b/f.py")
        )
        assert unified_diff({"f.py": old}, {"f.py": new}) == reference


def test_a_long_file_never_removes_and_adds_the_same_line() -> None:
    """difflib's junk heuristic (files of 200 lines or more) would show blank lines removed and added back."""
    old = "".join(f"def f{i}():\n    return {i}\n\n" for i in range(120))
    new = old.replace("    return 7\n\ndef f8():\n", "    return 70\n\ndef g8():\n")  # difflib: -blank +blank
    removed = {line[1:] for line in unified_diff({"f.py": old}, {"f.py": new}).splitlines() if line.startswith("-") and not line.startswith("---")}
    added = {line[1:] for line in unified_diff({"f.py": old}, {"f.py": new}).splitlines() if line.startswith("+") and not line.startswith("+++")}
    assert not removed & added
    assert changed_lines({"f.py": old}, {"f.py": new}) == len(one_line_changes(old, new)) == 4
    assert "-\n" in "".join(difflib.unified_diff(old.splitlines(True), new.splitlines(True)))
    assert apply_changes({"f.py": old}, [Change("f.py", c.edits, c.label) for c in one_line_changes(old, new)])["f.py"] == new


# --- isolating, on small programs -----------------------------------------------------------

SMALL_OLD = '''\
RATE = 0.25


def net(amount):
    return amount * (1 - RATE)


def label(name):
    return name.title()


def report(items):
    return [label(n) + ": " + str(net(a)) for n, a in items]
'''

SMALL_NEW = '''\
RATE = 0.25
CURRENCY = "EUR"


def net(amount):
    """After tax."""
    return amount * (1 - RATE)


def label(name):
    return name.upper()


def report(items):
    return [label(n) + ": " + str(net(a)) + " " + CURRENCY for n, a in items]
'''

SMALL_CHECK = '''
lines = report([("tea", 4)])
assert lines[0].startswith("Tea"), "label is %r" % lines[0].split(":")[0]
'''


@pytest.mark.parametrize("granularity", GRANULARITIES)
def test_isolates_the_failure_inducing_change(granularity: Granularity) -> None:
    oracle = exec_oracle(SMALL_NEW, SMALL_CHECK, "shop.py")
    result = isolate(SMALL_OLD, SMALL_NEW, oracle, granularity, filename="shop.py")
    assert [c.label for c in result.difference] == [
        {
            "lines": "replaced line 9 (+1 -1)",
            "statements": "replaced `return name.title()` (line 9, in label)",
            "functions": "replaced `return name.title()` (line 9, in label)",
        }[granularity]
    ]
    assert "-    return name.title()\n+    return name.upper()\n" in result.diff
    assert result.diff_lines == 2 and not result.requires and result.verified
    assert oracle.judge(result.passing_text).outcome is Outcome.PASS
    assert oracle.judge(result.failing_text).outcome is Outcome.FAIL
    # the passing version is the largest tested within the failing one (OLD here: the change is alone)
    assert result.passing_text == SMALL_OLD


@pytest.mark.parametrize("granularity", GRANULARITIES)
def test_a_change_that_uses_a_name_another_introduces(granularity: Granularity, tmp_path: Path) -> None:
    old_path, new_path, check_path = built(DEPENDENCY, tmp_path)
    old, new, check = (p.read_text(encoding="utf-8") for p in (old_path, new_path, check_path))
    oracle = exec_oracle(new, check, "report.py")
    result = isolate(old, new, oracle, granularity, filename="report.py", jobs=2)
    # the use alone is a NameError: UNRESOLVED, as dd+ counts an inconsistent configuration
    assert result.unresolved >= 1
    assert "+    return \"%g %s\" % (_significant(value, 3), unit)" in result.diff
    assert result.requires and result.verified
    for line in DEPENDENCY.contains:
        assert line in result.isolated_diff, line
    assert oracle.judge(result.failing_text).outcome is Outcome.FAIL
    again = patched(tmp_path / "patched", {"report.py": old}, result.isolated_diff)["report.py"]
    assert again == result.isolated_text
    assert oracle.judge(again).outcome is Outcome.FAIL
    # neither change alone reproduces
    use_only = apply_changes({"report.py": old}, result.difference)["report.py"]
    assert oracle.judge(use_only).outcome is Outcome.UNRESOLVED


def test_the_result_is_the_same_for_every_jobs(tmp_path: Path) -> None:
    old_path, new_path, check_path = built(DEPENDENCY, tmp_path)
    old, new, check = (p.read_text(encoding="utf-8") for p in (old_path, new_path, check_path))
    oracle = exec_oracle(new, check, "report.py")
    one = isolate(old, new, oracle, "statements", jobs=1, filename="report.py")
    four = isolate(old, new, oracle, "statements", jobs=4, filename="report.py")
    assert (one.passing, one.failing, one.isolated, one.tests) == (four.passing, four.failing, four.isolated, four.tests)
    assert [c.label for c in one.difference] == [c.label for c in four.difference]


class CountingOracle:
    """A text oracle whose tests run through ``start``: it records how many are alive at once.

    FAIL when both ``x5 = 50`` and ``x9 = 90`` are in the text (two changes
    needed together), UNRESOLVED when only ``x9 = 90`` is, PASS otherwise.
    """

    def __init__(self) -> None:
        self.alive = 0
        self.most_alive = 0
        self.started = 0

    @property
    def identity(self) -> str:
        return "counting"

    def judge(self, text: str) -> Verdict:
        if "x5 = 50" in text and "x9 = 90" in text:
            return Verdict(Outcome.FAIL, Run("exception", exception="AssertionError"))
        if "x9 = 90" in text:
            return Verdict(Outcome.UNRESOLVED, Run("exception", exception="NameError"))
        return Verdict(Outcome.PASS, Run("ok"))

    def calibrate(self, text: str) -> Verdict:
        return self.judge(text)

    def start(self, text: str) -> CountingPending:
        self.started += 1
        self.alive += 1
        self.most_alive = max(self.most_alive, self.alive)
        return CountingPending(self, self.judge(text))

    def close(self) -> None:
        pass


class CountingPending:
    def __init__(self, oracle: CountingOracle, verdict: Verdict) -> None:
        self.oracle = oracle
        self.verdict = verdict
        self.ended = False

    def _end(self) -> None:
        if not self.ended:
            self.ended = True
            self.oracle.alive -= 1

    def wait(self) -> Verdict:
        self._end()
        return self.verdict

    def cancel(self) -> None:
        self._end()


@pytest.mark.parametrize("granularity", GRANULARITIES)
def test_jobs_two_runs_two_tests_at_once_through_the_scheduler_with_the_same_result(granularity: Granularity) -> None:
    old = "".join(f"x{i} = {i}\n\n\n" for i in range(12))
    new = "".join(f"x{i} = {i * 10}\n\n\n" if i % 2 else f"x{i} = {i}\n\n\n" for i in range(12))
    results: dict[int, IsolationResult] = {}
    oracles: dict[int, CountingOracle] = {}
    for jobs in (1, 2):
        oracles[jobs] = CountingOracle()
        results[jobs] = isolate(old, new, oracles[jobs], granularity, jobs=jobs, filename="counted.py")
    one, two = results[1], results[2]
    # -j 1 judges one at a time; -j 2 starts tests ahead, two of them alive at once
    assert oracles[1].started == 0
    assert oracles[2].most_alive >= 2 and oracles[2].alive == 0
    assert (one.passing, one.failing, one.isolated) == (two.passing, two.failing, two.isolated)
    assert [c.label for c in one.difference] == [c.label for c in two.difference]
    assert [c.label for c in one.requires] == [c.label for c in two.requires]
    assert (one.tests, one.unresolved) == (two.tests, two.unresolved)
    assert [(s.name, s.tests) for s in one.levels] == [(s.name, s.tests) for s in two.levels]
    assert "x5 = 50" in one.failing_text and "x9 = 90" in one.failing_text and one.verified


def test_old_must_pass_and_new_must_fail() -> None:
    oracle = exec_oracle(SMALL_NEW, SMALL_CHECK, "shop.py")
    broken = SMALL_OLD.replace("return name.title()", "return name.tittle()")
    with pytest.raises(NotReproducibleError, match=r"^OLD does not pass: the oracle says UNRESOLVED \(AttributeError"):
        isolate(broken, SMALL_NEW, oracle, filename="shop.py")
    with pytest.raises(NotReproducibleError, match=r"^NEW does not fail: the oracle says PASS \(no exception\)"):
        isolate(SMALL_OLD, SMALL_OLD.replace("RATE = 0.25", "RATE = 0.2"), oracle, filename="shop.py")
    with pytest.raises(UsageError, match="identical"):
        isolate(SMALL_NEW, SMALL_NEW, oracle, filename="shop.py")


# --- real releases of real modules ----------------------------------------------------------

#: (case, granularity (+ " refined"), changes, tests, seconds, diff lines, isolated changes, patch lines on OLD)
FIGURES: list[tuple[str, str, int, int, float, int, int, int]] = []


@pytest.fixture(scope="module", autouse=True)
def figures_table(request: pytest.FixtureRequest) -> Iterator[None]:
    """Print the figures of the release cases as a table when the module's tests are done."""
    yield
    if not FIGURES:
        return
    header = ("case", "granularity", "changes", "tests", "seconds", "diff lines", "isolated", "patch lines")
    ordered = sorted(FIGURES, key=lambda row: (row[0], [str(g) for g in GRANULARITIES].index(row[1].split()[0]), row[1]))
    rows = [header] + [
        (case, granularity, str(changes), str(tests), f"{seconds:.1f}", str(lines), str(isolated), str(patch))
        for case, granularity, changes, tests, seconds, lines, isolated, patch in ordered
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    text = "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows)
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is None or capture is None:
        return
    with capture.global_and_fixture_disabled():
        reporter.write_line("")
        reporter.write_line(f"astreduce isolate on standard-library releases (one interpreter, Python {sys.version.split()[0]}):")
        for line in text.splitlines():
            reporter.write_line(line)


def isolate_release(
    case: Any, folder: Path, granularities: tuple[Granularity, ...], *, refine: bool = False
) -> dict[str, IsolationResult]:
    """Isolate a release case at each granularity, check each result, record its figures."""
    old_path, new_path, check_path = built(case, folder)
    old, new, check = (p.read_text(encoding="utf-8") for p in (old_path, new_path, check_path))
    name = new_path.name
    oracle = exec_oracle(new, check, name)
    results: dict[str, IsolationResult] = {}
    for granularity in granularities:
        started = time.monotonic()
        result = isolate(old, new, oracle, granularity, jobs=2, filename=name, refine=refine)
        seconds = time.monotonic() - started
        results[granularity] = result
        isolated = len(result.isolated_changes)
        label = f"{granularity} refined" if refine else granularity
        FIGURES.append((case.name, label, len(result.changes), result.tests, seconds, result.diff_lines, isolated, result.isolated_lines))
        assert result.verified, granularity
        assert result.coarse == apply_changes(result.old, result.requires + result.difference)
        assert result.isolated == apply_changes(result.old, result.isolated_changes)
        if not refine:
            assert result.isolated == result.coarse
        # the isolated patch, applied alone to OLD with patch(1), reproduces the failure when run
        again = patched(folder / granularity, {name: old}, result.isolated_diff)[name]
        assert again == result.isolated_text
        verdict = oracle.judge(again)
        assert verdict.outcome is Outcome.FAIL, (granularity, verdict.run.describe())
        for line in case.contains:
            assert line in result.isolated_diff, (granularity, line)
        # a small part of the whole change (binary reduction stops at a failing patch, not a 1-minimal one: the
        # finer levels of refine settle that)
        assert result.isolated_lines * 2 < changed_lines(result.old, result.new), granularity
        assert result.refined is refine
    return results


@pytest.mark.parametrize("case", RELEASE_CASES, ids=[case.name for case in RELEASE_CASES])
def test_release_case_at_each_granularity_fails_on_old(case: Any, tmp_path: Path) -> None:
    results = isolate_release(case, tmp_path, ("lines", "functions"))
    # the passing version lies within the failing one: their difference is what the failing one adds
    for result in results.values():
        passing_ids = {id(c) for c in result.passing_changes}
        assert passing_ids <= {id(c) for c in result.requires + result.difference}


@pytest.mark.slow
@pytest.mark.parametrize("case", RELEASE_CASES, ids=[case.name for case in RELEASE_CASES])
def test_release_case_by_statements(case: Any, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    if "slow" not in str(request.config.getoption("markexpr")):
        pytest.skip("statements on the release cases: run with -m slow")
    isolate_release(case, tmp_path, ("statements",))


# --- the patch on OLD, 1-minimal by lines ----------------------------------------------------

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def changed_patch_lines(diff: str) -> list[int]:
    """Indices (into ``diff.splitlines(keepends=True)``) of its changed lines: ``-`` and ``+`` in hunks."""
    return [
        index
        for index, line in enumerate(diff.splitlines(keepends=True))
        if line[:1] in "+-" and not line.startswith(("--- ", "+++ "))
    ]


def without_line(diff: str, index: int) -> str:
    """``diff`` with its changed line at ``index`` taken back, as a user would edit the patch.

    An added line is dropped; a removed line becomes context (the line stays).
    The hunk's header gets the new count of lines on NEW's side. Written
    here from the patch format alone, not from astreduce's changes.
    """
    lines = diff.splitlines(keepends=True)
    line = lines[index]
    header = max(i for i in range(index) if lines[i].startswith("@@ "))
    match = _HUNK.match(lines[header])
    assert match is not None, lines[header]
    old_start, old_count, new_start, new_count = match.groups()
    count = int(new_count if new_count is not None else 1)
    if line.startswith("+"):
        count -= 1
        drop = 2 if index + 1 < len(lines) and lines[index + 1].startswith("\\") else 1
        lines[index : index + drop] = []
    else:
        count += 1
        lines[index] = " " + line[1:]
    old = old_start if old_count is None else f"{old_start},{old_count}"
    lines[header] = f"@@ -{old} +{new_start},{count} @@" + lines[header][match.end() :]
    return _without_empty_hunks(lines)


def _without_empty_hunks(lines: list[str]) -> str:
    """The patch without hunks that change nothing (``patch`` calls them malformed), nor files left without hunks."""
    kept: list[str] = []
    hunk: list[str] = []
    files: list[str] = []

    def close_hunk() -> None:
        if any(line[:1] in "+-" for line in hunk[1:]):
            kept.extend(files)
            files.clear()
            kept.extend(hunk)
        hunk.clear()

    for line in lines:
        if line.startswith("--- "):
            close_hunk()
            files[:] = [line]
        elif line.startswith("+++ ") and files and not hunk:
            files.append(line)
        elif line.startswith("@@ "):
            close_hunk()
            hunk.append(line)
        else:
            hunk.append(line)
    close_hunk()
    return "".join(kept)


def check_one_minimal_by_lines(case: Any, folder: Path) -> IsolationResult:
    """The patch on OLD applies with ``patch -p1``, reproduces, and taking back any one of its lines does not."""
    results = isolate_release(case, folder, ("functions",), refine=True)
    result = results["functions"]
    old_path, new_path, check_path = built(case, folder / "again")
    name = new_path.name
    old, new, check = (p.read_text(encoding="utf-8") for p in (old_path, new_path, check_path))
    oracle = exec_oracle(new, check, name)
    diff = result.isolated_diff
    changed = changed_patch_lines(diff)
    assert len(changed) == result.isolated_lines == len(result.isolated_changes) > 0
    assert result.isolated_lines <= changed_lines(result.old, result.coarse)
    assert oracle.judge(patched(folder / "whole", {name: old}, diff)[name]).outcome is Outcome.FAIL
    for number, index in enumerate(changed):
        edited = without_line(diff, index)
        variant = patched(folder / f"without-{number}", {name: old}, edited)[name] if edited else old
        verdict = oracle.judge(variant)
        assert verdict.outcome is not Outcome.FAIL, (diff.splitlines()[index], verdict.run.describe())
    return result


def test_without_line_edits_a_patch_as_patch_reads_it(tmp_path: Path) -> None:
    old = {"m.py": "a = 1\nb = 2\nc = 3\n"}
    new = {"m.py": "a = 1\nb = 20\nc = 3\nd = 4\n"}
    diff = unified_diff(old, new)
    changed = changed_patch_lines(diff)
    assert [diff.splitlines()[i] for i in changed] == ["-b = 2", "+b = 20", "+d = 4"]
    variants = [patched(tmp_path / str(i), old, without_line(diff, i))["m.py"] for i in changed]
    assert variants == ["a = 1\nb = 2\nb = 20\nc = 3\nd = 4\n", "a = 1\nc = 3\nd = 4\n", "a = 1\nb = 20\nc = 3\n"]
    one = unified_diff(old, {"m.py": "a = 1\nb = 2\nc = 3\nd = 4\n"})
    assert without_line(one, changed_patch_lines(one)[0]) == ""


THREE_OLD = "def f():\n    a = 1\n    b = 2\n    c = 3\n    return a\n\n\nX = 1\n"
THREE_NEW = "def f():\n    a = 10\n    b = 20\n    c = 30\n    return a\n\n\nX = 2\n"


class NeedsB:
    """FAIL when ``b = 20`` is in the text; with ``interrupt``, the first candidate that splits f's change is a Ctrl-C."""

    identity = "needs-b"

    def __init__(self, interrupt: bool = False) -> None:
        self.interrupt = interrupt

    def judge(self, text: str) -> Verdict:
        if self.interrupt and "b = 20" in text and "c = 30" not in text:
            self.interrupt = False
            raise KeyboardInterrupt
        if "b = 20" in text:
            return Verdict(Outcome.FAIL, Run("exception", exception="AssertionError"))
        return Verdict(Outcome.PASS, Run("ok"))

    def calibrate(self, text: str) -> Verdict:
        return self.judge(text)

    def start(self, text: str) -> Any:
        raise AssertionError("-j 1 judges one at a time")

    def close(self) -> None:
        pass


def test_functions_split_into_statements_then_lines() -> None:
    result = isolate(THREE_OLD, THREE_NEW, NeedsB(), "functions", filename="m.py")
    assert [c.label for c in result.difference] == ["def f: 3 changes"]
    assert changed_lines(result.old, result.coarse) == 6
    # the line that matters, added after the one it overrides: 1-minimal by lines
    assert result.isolated_text == THREE_OLD.replace("    b = 2\n", "    b = 2\n    b = 20\n")
    assert result.isolated_lines == 1 and result.refined and result.verified
    assert [c.label for c in result.isolated_changes] == ["added before line 4: `b = 20`"]
    assert [(s.name, s.changes, s.difference) for s in result.levels[1:]] == [("statements on OLD", 3, 1), ("lines on OLD", 2, 1)]
    coarse = isolate(THREE_OLD, THREE_NEW, NeedsB(), "functions", filename="m.py", refine=False)
    assert coarse.isolated == coarse.coarse == result.coarse and not coarse.refined
    assert [s.name for s in coarse.levels] == ["functions"] and coarse.tests < result.tests


def test_a_stop_while_splitting_keeps_the_smallest_patch_so_far() -> None:
    with pytest.raises(ReductionStopped) as stopped:
        isolate(THREE_OLD, THREE_NEW, NeedsB(interrupt=True), "functions", filename="m.py")
    result = stopped.value.result
    assert isinstance(result, IsolationResult)
    assert result.interrupted and not result.refined and result.verified
    assert result.levels[-1].name == "statements on OLD"
    # the smallest patch on OLD tested so far (verified: it fails), smaller than the unsplit one
    assert "b = 20" in result.isolated_text and result.isolated_lines < changed_lines(result.old, result.coarse) == 6
    assert result.diff_lines == 6  # the minimal difference was found before the stop


#: Release cases whose refined isolation takes more than a few seconds (hundreds of tests).
LONG_REFINED = {"statistics_stdev", "calendar_weekday_enum"}


@pytest.mark.parametrize(
    "case",
    [pytest.param(case, marks=[pytest.mark.slow] if case.name in LONG_REFINED else []) for case in [*RELEASE_CASES, DEPENDENCY]],
    ids=[case.name for case in [*RELEASE_CASES, DEPENDENCY]],
)
def test_patch_on_old_is_one_minimal_by_lines(case: Any, tmp_path: Path) -> None:
    check_one_minimal_by_lines(case, tmp_path)


# --- the command ----------------------------------------------------------------------------


def invoke(args: list[str]) -> Any:
    return CliRunner().invoke(isolate_command, args, catch_exceptions=False)


def test_cli_prints_the_difference_and_writes_versions_and_report(tmp_path: Path) -> None:
    old, new, check = built(DEPENDENCY, tmp_path)
    out = tmp_path / "found.diff"
    report = tmp_path / "report.json"
    result = invoke([str(old), str(new), "--append", str(check), "-o", str(out), "--report", str(report), "-j", "2"])
    assert result.exit_code == 0, result.output
    assert result.stdout == out.read_text(encoding="utf-8")
    assert result.stdout.startswith("--- a/report.py\n+++ b/report.py\n@@ ")
    assert "astreduce: difference of the passing and failing versions: 1 change(s), 2 lines" in result.stderr
    passing, failing = tmp_path / "found.passing.py", tmp_path / "found.failing.py"
    minimal = tmp_path / "found.minimal-difference.diff"
    assert passing.is_file() and failing.is_file() and minimal.is_file()
    assert not (tmp_path / "found.isolated.diff").exists()  # -o is the patch on OLD
    # -o holds the patch on OLD; the difference passing -> failing goes beside it
    assert minimal.read_text(encoding="utf-8") == unified_diff(
        {"report.py": passing.read_text(encoding="utf-8")}, {"report.py": failing.read_text(encoding="utf-8")}
    )
    for line in DEPENDENCY.contains:
        assert line in result.stdout, line
    assert "patch on OLD (1-minimal by lines): 4 changed lines in 2 hunks (11 before splitting)" in result.stderr
    program = "import sys; exec(open(sys.argv[1]).read() + open(sys.argv[2]).read())"
    ok = subprocess.run([sys.executable, "-c", program, str(passing), str(check)], capture_output=True, text=True, check=False)
    assert ok.returncode == 0, ok.stderr
    bad = subprocess.run([sys.executable, "-c", program, str(failing), str(check)], capture_output=True, text=True, check=False)
    assert "AssertionError: report gives '0.002 m'" in bad.stderr
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["granularity"] == "functions" and data["verified"] is True
    assert data["tests"] == sum(level["tests"] for level in data["levels"]) > 0
    assert data["changes"] == data["levels"][0]["changes"] > data["difference"]["changes"] == 1
    assert data["diff_lines"] == data["difference"]["lines"] == 2
    for which in ("passing", "failing", "isolated"):
        assert {"bytes", "lines", "tokens", "changes", "path"} <= set(data[which])
    assert data["requires"]["changes"] == 1 and data["isolated"]["path"] == str(out)
    assert data["difference"]["path"] == str(minimal)
    assert data["isolated"]["refined"] is True and data["isolated"]["lines"] == data["isolated"]["changes"] == 4
    assert data["isolated"]["unrefined"] == {"changes": 2, "lines": 11}
    assert [level["name"] for level in data["levels"]] == [
        "functions", "statements on OLD", "statements on OLD (depth 1)", "lines on OLD", "re-expressed on OLD",
    ]
    assert {"cache_hits", "seconds", "oracle_seconds", "unresolved"} <= set(data)


def test_cli_no_refine_stops_at_the_granularity(tmp_path: Path) -> None:
    old, new, check = built(DEPENDENCY, tmp_path)
    report = tmp_path / "report.json"
    result = invoke([str(old), str(new), "--append", str(check), "--no-refine", "--report", str(report)])
    assert result.exit_code == 0, result.output
    data = json.loads(report.read_text(encoding="utf-8"))
    assert [level["name"] for level in data["levels"]] == ["functions"]
    assert data["isolated"]["refined"] is False and data["isolated"]["lines"] == data["isolated"]["unrefined"]["lines"] == 11
    # without -o the patch and the minimal difference go next to NEW
    patch = new.parent / f"{new.stem}.isolated.diff"
    assert data["isolated"]["path"] == str(patch) and patch.read_text(encoding="utf-8") == result.stdout
    assert (new.parent / f"{new.stem}.minimal-difference.diff").is_file()
    assert "patch on OLD (not split down to lines): 11 changed lines in 2 hunks (11 before splitting)" in result.stderr


def test_the_patch_of_two_files_applies_to_old_when_their_names_differ(tmp_path: Path) -> None:
    """``patch -p1`` in OLD's folder: the headers name OLD's file (before, NEW's: patch found no file to patch)."""
    if shutil.which("patch") is None:
        pytest.skip("no patch command")
    (tmp_path / "v1").mkdir()
    (tmp_path / "v2").mkdir()
    (tmp_path / "v1" / "calc_v1.py").write_text("def f():\n    return 1\n\n\ndef g():\n    return 2\n\n\nassert f() + g() == 3, 'sum'\n")
    (tmp_path / "v2" / "calc_v2.py").write_text("def f():\n    return 10\n\n\ndef g():\n    return 2\n\n\nassert f() + g() == 3, 'sum'\n")
    result = invoke([str(tmp_path / "v1" / "calc_v1.py"), str(tmp_path / "v2" / "calc_v2.py")])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("--- a/calc_v1.py\n+++ b/calc_v1.py\n")
    applied = subprocess.run(["patch", "-p1"], input=result.stdout, cwd=tmp_path / "v1", capture_output=True, text=True, check=False)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    failing = subprocess.run([sys.executable, "calc_v1.py"], cwd=tmp_path / "v1", capture_output=True, text=True, check=False)
    assert failing.returncode == 1 and "AssertionError: sum" in failing.stderr


def test_cli_one_line_errors(tmp_path: Path) -> None:
    old, new = tmp_path / "old.py", tmp_path / "new.py"
    old.write_text("x = 1 / 0\n", encoding="utf-8")
    new.write_text("raise ValueError('boom')\n", encoding="utf-8")
    result = invoke([str(old), str(new)])
    assert result.exit_code == 1
    assert result.stderr == "astreduce: OLD does not pass: the oracle says UNRESOLVED (ZeroDivisionError('division by zero'))\n"
    old.write_text("x = 1\n", encoding="utf-8")
    new.write_text("x = 2\n", encoding="utf-8")
    result = invoke([str(old), str(new)])
    assert result.exit_code == 1
    assert result.stderr.startswith("astreduce: NEW does not fail: it raises no exception: it runs to the end")
    result = invoke([str(old), str(tmp_path)])
    assert (result.exit_code, result.stderr) == (2, f"astreduce: {old} and {tmp_path}: give two files or two directories, not one of each\n")
    result = invoke([str(old), str(old)])
    assert (result.exit_code, result.stderr) == (2, "astreduce: OLD and NEW are identical: there are no changes to isolate\n")
    result = invoke([str(old), str(new), "--match", "regex:("])
    assert result.exit_code == 2 and result.stderr.startswith("astreduce: --match 'regex:(': not a valid regular expression")
    result = invoke([str(old), str(tmp_path / "missing.py")])
    assert (result.exit_code, result.stderr) == (2, f"astreduce: {tmp_path / 'missing.py'}: no such file or directory\n")


# --- packages -------------------------------------------------------------------------------

PACKAGE_OLD = {
    "main.py": (
        "from shop.cart import Cart\n\ncart = Cart()\ncart.add('book', 12.5, quantity=2)\ncart.add('pen', 1.25)\n"
        "assert cart.total() == 26.25, 'total is %r' % cart.total()\n"
    ),
    "shop/__init__.py": '"""A tiny shop."""\n',
    "shop/pricing.py": "def line_price(price, quantity):\n    return price * quantity\n\n\ndef discount(amount, rate=0.0):\n    return amount * (1 - rate)\n",
    "shop/cart.py": (
        "from shop.pricing import discount, line_price\n\n\nclass Cart:\n    def __init__(self):\n        self.lines = []\n\n"
        "    def add(self, name, price, quantity=1):\n        self.lines.append((name, price, quantity))\n\n"
        "    def total(self):\n        return discount(sum(line_price(p, q) for _, p, q in self.lines))\n"
    ),
    "shop/legacy.py": "OLD_API = True\n",
    "README.txt": "Shop v1\n",
}

PACKAGE_NEW = {
    "main.py": PACKAGE_OLD["main.py"],
    "shop/__init__.py": PACKAGE_OLD["shop/__init__.py"],
    "shop/pricing.py": (
        "import math\n\n\ndef line_price(price, quantity):\n    \"\"\"Price of ``quantity`` items.\"\"\"\n"
        "    return math.floor(price) * quantity\n\n\ndef discount(amount, rate=0.0):\n"
        "    if not 0 <= rate < 1:\n        raise ValueError(rate)\n    return amount * (1 - rate)\n"
    ),
    "shop/cart.py": PACKAGE_OLD["shop/cart.py"].replace(
        "class Cart:\n", 'class Cart:\n    """Lines of (name, price, quantity)."""\n\n'
    ) + "\n    def count(self):\n        return sum(q for _, _, q in self.lines)\n",
    "shop/tax.py": "RATE = 0.2\n",
    "README.txt": "Shop v2\n",
}


@pytest.fixture
def package(tmp_path: Path) -> tuple[Path, Path]:
    for name, tree in (("old", PACKAGE_OLD), ("new", PACKAGE_NEW)):
        for path, text in tree.items():
            target = tmp_path / name / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    return tmp_path / "old", tmp_path / "new"


@pytest.mark.parametrize("oracle_args", [["--entry", "main.py"], ["--run", "{python} main.py"]], ids=["entry", "run"])
def test_packages_by_file_then_within_files(package: tuple[Path, Path], oracle_args: list[str], tmp_path: Path) -> None:
    old, new = package
    out, report = tmp_path / "found.diff", tmp_path / "report.json"
    result = invoke([str(old), str(new), *oracle_args, "-o", str(out), "--report", str(report), "-j", "2"])
    assert result.exit_code == 0, result.output
    data = json.loads(report.read_text(encoding="utf-8"))
    folders, files, within = data["levels"][:3]
    # by folder first (the root's files and shop/), then by file
    assert (folders["name"], folders["changes"], folders["result"]) == ("directories", 5, 4)
    assert (files["name"], files["changes"], files["result"]) == ("files", 4, 1)
    # the failing version: the change and the import it needs (which of them the difference is depends on what
    # was tested: the passing version is the largest tested within the failing one)
    assert within["name"] == "functions" and sorted(data["difference"]["labels"] + data["requires"]["labels"]) == [
        "shop/pricing.py: added `import math` (before line 1, in module)", "shop/pricing.py: def line_price: 3 changes",
    ]
    assert result.stdout.startswith("--- a/shop/pricing.py\n+++ b/shop/pricing.py\n")
    assert "+    return math.floor(price) * quantity\n" in result.stdout
    passing, failing = tmp_path / "found.passing", tmp_path / "found.failing"
    assert "return math.floor(price) * quantity" in read_tree(failing)["shop/pricing.py"]
    assert run_python("import runpy; runpy.run_path('main.py')", passing).returncode == 0
    assert "AssertionError: total is 25.0" in run_python("import runpy; runpy.run_path('main.py')", failing).stderr
    # the isolated patch (-o) alone makes OLD fail
    assert out.read_text(encoding="utf-8") == result.stdout
    again = patched(tmp_path / "patched", dict(PACKAGE_OLD), out.read_text(encoding="utf-8"))
    assert "AssertionError: total is 25.0" in run_python("import runpy; runpy.run_path('main.py')", tmp_path / "patched").stderr
    assert again["shop/pricing.py"].startswith("import math\n")
    # a second run replaces the versions it wrote
    assert invoke([str(old), str(new), *oracle_args, "-o", str(out), "-q"]).exit_code == 0


def test_packages_need_an_entry_or_a_command(package: tuple[Path, Path]) -> None:
    old, new = package
    options = OracleOptions()
    with pytest.raises(UsageError, match="directories need --entry FILE"):
        isolate_paths(old, new, options)
    with pytest.raises(UsageError, match="--append cannot be used when OLD and NEW are directories"):
        isolate_paths(old, new, OracleOptions(append="x = 1\n"), entry="main.py")
    with pytest.raises(UsageError, match="no such file in the tree"):
        isolate_paths(old, new, options, entry="nothing.py")
    (old.parent / "readme_only").mkdir()
    shutil.copytree(old, old.parent / "readme_only", dirs_exist_ok=True)
    (old.parent / "readme_only" / "README.txt").write_text("Shop v1.1\n", encoding="utf-8")
    with pytest.raises(NotReproducibleError, match=r"^NEW does not fail: it raises no exception"):
        isolate_paths(old, old.parent / "readme_only", options, entry="main.py")
    with pytest.raises(UsageError, match="OLD and NEW are identical"):
        isolate_paths(old, old, options, entry="main.py")


# --- Ctrl-C ---------------------------------------------------------------------------------

SLOW_CHECK = """
import time as _time
with open({marker!r}, "a") as _marker:
    _marker.write("test\\n")
_time.sleep(0.2)
assert not (f5() == 500 and f17() == 1700 and f23() == 2300 and f31() == 3100), "four changed"
"""


@pytest.mark.parametrize("jobs", [1, 2])
def test_sigint_stops_between_two_tests_and_keeps_the_versions_so_far(jobs: int, tmp_path: Path) -> None:
    """A real SIGINT to ``python -m astreduce isolate``: exit 130, both versions written and valid.

    The failure needs four of twenty changes together, so the search runs
    about thirty tests of 0.2 s each; the signal comes once the third test
    of the search has started (each test appends a line to ``marker``; five
    runs come before the search: NEW three times to calibrate, NEW and OLD).
    """
    old = "".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(40))
    new = "".join(f"def f{i}():\n    return {i * 100 if i % 2 else i}\n\n\n" for i in range(40))
    marker = tmp_path / "marker"
    (tmp_path / "old.py").write_text(old, encoding="utf-8")
    (tmp_path / "new.py").write_text(new, encoding="utf-8")
    check = tmp_path / "check.py"
    check.write_text(SLOW_CHECK.format(marker=str(marker)), encoding="utf-8")
    args = ["old.py", "new.py", "--append", str(check), "--report", "r.json", "-j", str(jobs), "--allow-write", str(tmp_path)]
    process = subprocess.Popen(
        [sys.executable, "-m", "astreduce", "isolate", *args], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        while process.poll() is None and (not marker.exists() or len(marker.read_text().splitlines()) < 8):
            time.sleep(0.01)
        assert process.poll() is None, "the search ended before the signal"
        os.kill(process.pid, signal.SIGINT)
        stdout, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, stderr
    assert "astreduce: interrupted; best result so far (verified) written to " in stderr, stderr
    passing, failing = tmp_path / "new.passing.py", tmp_path / "new.failing.py"
    assert passing.is_file() and failing.is_file()
    # stopped in the first level: the patch on OLD so far is the whole failing version
    assert stdout == unified_diff({"old.py": old}, {"old.py": failing.read_text(encoding="utf-8")})
    minimal = (tmp_path / "new.minimal-difference.diff").read_text(encoding="utf-8")
    assert minimal == unified_diff({"old.py": passing.read_text(encoding="utf-8")}, {"old.py": failing.read_text(encoding="utf-8")})
    program = "import sys; exec(open(sys.argv[1]).read() + open(sys.argv[2]).read())"
    ran = subprocess.run([sys.executable, "-c", program, str(failing), str(check)], capture_output=True, text=True, check=False)
    assert "AssertionError: four changed" in ran.stderr
    ran = subprocess.run([sys.executable, "-c", program, str(passing), str(check)], capture_output=True, text=True, check=False)
    assert ran.returncode == 0, ran.stderr
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["interrupted"] is True and report["verified"] is True
    assert 0 < report["tests"] < 35  # stopped early: the whole search takes 35


def test_resume_answers_the_tests_an_earlier_run_made_from_disk(tmp_path: Path) -> None:
    """``isolate --resume`` (issue 47): a search its budget stopped goes on from the cache, to the patch and the
    test count of a fresh run (what the earlier run tested is read from disk, and said so)."""
    (tmp_path / "old.py").write_text(SMALL_OLD, encoding="utf-8")
    (tmp_path / "new.py").write_text(SMALL_NEW, encoding="utf-8")
    (tmp_path / "check.py").write_text(SMALL_CHECK, encoding="utf-8")

    def run(name: str, *more: str) -> tuple[dict[str, Any], str]:
        done = subprocess.run(
            [sys.executable, "-m", "astreduce", "isolate", "old.py", "new.py", "--append", "check.py", "-j", "1",
             "-o", f"{name}.diff", "--report", f"{name}.json", *more],
            cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
        )
        assert done.returncode == 0, done.stderr
        return json.loads((tmp_path / f"{name}.json").read_text(encoding="utf-8")), done.stderr

    fresh, _ = run("fresh")
    first, _ = run("first", "--resume", "--cache-dir", "cache", "--max-tests", "3")
    again, said = run("again", "--resume", "--cache-dir", "cache")
    assert first["budget_ended"] is True and first["tests"] == 3 and fresh["tests"] > 3
    assert (again["resumed"], again["tests"] + again["resumed"]) == (3, fresh["tests"])
    assert "3 more answered from an earlier run's cache (--resume)" in said
    assert (tmp_path / "again.diff").read_text() == (tmp_path / "fresh.diff").read_text()
