"""The surface a newcomer meets in a first hour (issue 47): what goes to standard output, a result never
larger than its input, and messages that say what is true and what to do.

Real subprocesses on small files, with small budgets (``--max-tests``), so that every test is quick.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ASTREDUCE = [sys.executable, "-m", "astreduce"]

#: A call black splits one argument a line, adding a trailing comma: one token more than the input.
LONG_CALL = """\
def f(*a):
    raise KeyError(len(a))
f(1111111111, 2222222222, 3333333333, 4444444444, 5555555555, 6666666666, 7777777777, 8888888888, 9999999999)
"""

SMALL = """\
table = {"a": 1}
other = [1, 2, 3]
print(len(other))
value = table["missing"]
"""


def astreduce(*args: str | Path, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ASTREDUCE, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=timeout)


# --- a result is never larger than its input ----------------------------------------------


def test_black_never_makes_a_budget_ended_result_larger_than_its_input(tmp_path: Path) -> None:
    (tmp_path / "call.py").write_text(LONG_CALL)
    done = astreduce("reduce", "call.py", "--max-tests", "1", "-j", "1", "-o", "out.py", "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["output"]["tokens"] <= report["input"]["tokens"], done.stderr
    assert "-> 36 tokens" not in done.stderr


def test_black_never_makes_a_tree_larger_than_its_input(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text(LONG_CALL)
    done = astreduce(
        "reduce", "src", "--entry", "main.py", "--max-tests", "1", "-j", "1", "-o", "out", "--report", "r.json", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["output"]["tokens"] <= report["input"]["tokens"], done.stderr


# --- standard output carries the result only without -o, never under -q --------------------


@pytest.mark.parametrize(
    ("flags", "on_stdout"),
    [
        pytest.param([], True, id="no-o"),
        pytest.param(["-o", "-"], True, id="o-dash"),
        pytest.param(["-o", "small.py"], False, id="o-file"),
        pytest.param(["-q"], False, id="quiet"),
        pytest.param(["-o", "-", "-q"], False, id="o-dash-quiet"),
    ],
)
def test_stdout_carries_the_result_only_without_o_and_never_under_q(tmp_path: Path, flags: list[str], on_stdout: bool) -> None:
    (tmp_path / "lookup.py").write_text(SMALL)
    done = astreduce("reduce", "lookup.py", "--no-format", "--max-tests", "20", "-j", "1", *flags, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    written = tmp_path / ("small.py" if "small.py" in flags else "lookup.reduced.py")
    assert written.is_file()
    assert done.stdout == (written.read_text() if on_stdout else "")
    assert not (tmp_path / "-").exists()


def test_stdout_carries_no_tree_with_o(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text(SMALL)
    done = astreduce("reduce", "src", "--entry", "main.py", "--max-tests", "5", "-j", "1", "-o", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert "src -> out" in done.stderr


def test_o_dash_and_report_dash_together_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "lookup.py").write_text(SMALL)
    done = astreduce("reduce", "lookup.py", "-o", "-", "--report", "-", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "astreduce: -o - and --report - both name standard output; write one of them to a file"
    ]
