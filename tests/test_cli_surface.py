"""The surface a newcomer meets in a first hour (issue 47): what goes to standard output, a result never
larger than its input, and messages that say what is true and what to do.

Real subprocesses on small files, with small budgets (``--max-tests``), so that every test is quick.
"""

from __future__ import annotations

import json
import re
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
    return subprocess.run([*ASTREDUCE, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)


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


# --- messages that say what is true and what to do --------------------------------------------


def one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def test_a_program_that_does_not_fail_is_not_told_to_use_expect(tmp_path: Path) -> None:
    (tmp_path / "fine.py").write_text("x = 1\nprint(x)\n")
    done = astreduce("reduce", "fine.py", cwd=tmp_path)
    assert done.returncode == 1
    line = one_line(done.stderr)
    assert "raises no exception: it runs to the end" in line and "--expect" not in line
    assert "--run '{python} {file}' with --stdout REGEX or --exit-code N" in line


@pytest.mark.parametrize("flags", [[], ["--strategy", "lines"]], ids=["auto", "lines"])
def test_python_2_is_told_the_python_27_recipe(tmp_path: Path, flags: list[str]) -> None:
    (tmp_path / "old.py").write_text('x = 1\nprint "hi"\nraise ValueError("x")\n')
    done = astreduce("reduce", "old.py", *flags, cwd=tmp_path)
    assert done.returncode == 2
    line = one_line(done.stderr)
    assert "it looks like Python 2" in line
    assert "--python 2.7 --run '{python} {file}' --exit-code 1 --strategy lines" in line


def test_text_that_is_not_python_is_told_to_use_a_command_oracle_too(tmp_path: Path) -> None:
    (tmp_path / "data.py").write_text("x = (\n")
    done = astreduce("reduce", "data.py", cwd=tmp_path)
    assert done.returncode == 2
    assert one_line(done.stderr).endswith(
        "(input that is not Python: --strategy lines, chars or tokens, with a command oracle, --run or --test)"
    )


def test_a_command_oracle_test_says_its_exit_status_not_no_exception(tmp_path: Path) -> None:
    (tmp_path / "carol.py").write_text(CAROL)
    done = astreduce(
        "reduce", "carol.py", "--run", f"{sys.executable} {{file}}", "-v", "1", "--max-tests", "6", "-j", "1",
        "-o", "out.py", cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    tests = [line for line in done.stderr.splitlines() if line.startswith("astreduce: test ")]
    assert tests and "no exception" not in done.stderr
    assert any(re.match(r"astreduce: test \d+: PASS \(exit status 0, ", line) for line in tests), tests
    assert any(re.match(r"astreduce: test \d+: (UNRESOLVED|FAIL) \(exit status 1, stderr: ", line) for line in tests), tests


def test_verbose_numbers_only_the_tests_counted(tmp_path: Path) -> None:
    """At -j 2 tests start ahead of the search; those not needed, or past --max-tests, are not numbered."""
    (tmp_path / "junk.py").write_text("".join(f"junk_{i} = {i}\n" for i in range(20)) + "raise ValueError('x')\n")
    done = astreduce("reduce", "junk.py", "-v", "1", "--max-tests", "4", "-j", "2", "-o", "out.py", "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    numbers = [int(n) for n in re.findall(r"^astreduce: test (\d+): ", done.stderr, re.MULTILINE)]
    assert numbers == list(range(1, json.loads((tmp_path / "r.json").read_text())["tests"] + 1)) and max(numbers) <= 4


CAROL = 'people = {"alice": 1}\nprint(people["carol"])\n'


def test_a_key_error_reads_as_python_writes_it_and_sizes_say_what_they_count(tmp_path: Path) -> None:
    (tmp_path / "carol.py").write_text("\n" + CAROL + "\n\n")
    done = astreduce("reduce", "carol.py", "-o", "out.py", "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "KeyError('carol')" in done.stderr and "KeyError(\"'carol'\")" not in done.stderr
    assert json.loads((tmp_path / "r.json").read_text())["target"] == "KeyError('carol')"
    first, summary = done.stderr.splitlines()[0], done.stderr.splitlines()[-1]
    assert "carol.py: 14 tokens, 2 non-blank lines;" in first  # 5 lines as wc -l counts them: said "non-blank"
    assert "one run of the original takes " in first
    assert re.search(r"2 -> \d non-blank lines", summary), summary


# --- reports: target filled for every oracle ----------------------------------------------------


@pytest.mark.parametrize(
    ("oracle", "target"),
    [
        pytest.param(["--run", "{python} {file}"], "exit status 1, stderr: \"KeyError: 'carol'\"", id="run"),
        pytest.param(["--run", "{python} {file}", "--stderr", "Key"], "exit status 1, stderr: \"KeyError: 'carol'\"", id="stderr"),
        pytest.param(["--run", "{python} {file}", "--exit-code", "1"], "exit status 1", id="exit-code"),
        pytest.param(
            ["--differential", "{python} {file}", "{python} -c pass"],
            "the two commands differ (exit status 1, stderr: \"KeyError: 'carol'\" / exit status 0)", id="differential",
        ),
        pytest.param(["--test", "./check.sh"], "the test script exits 0", id="test"),
    ],
)
def test_every_command_oracle_names_its_target_in_the_report(tmp_path: Path, oracle: list[str], target: str) -> None:
    (tmp_path / "carol.py").write_text(CAROL)
    (tmp_path / "check.sh").write_text(f'#!/bin/sh\n"{sys.executable}" "$1" 2>&1 | grep -q carol\n')
    (tmp_path / "check.sh").chmod(0o755)
    done = astreduce("reduce", "carol.py", *oracle, "--max-tests", "2", "-j", "1", "-o", "out.py", "--report", "r.json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "r.json").read_text())["target"] == target


def test_batch_resumes_from_a_persistent_cache_as_reduce_does(tmp_path: Path) -> None:
    (tmp_path / "inputs").mkdir()
    (tmp_path / "inputs" / "carol.py").write_text(CAROL)
    done = astreduce("batch", "inputs", "-o", "out", "--resume", "--cache-dir", "cache", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "cache" / "outcomes.sqlite").is_file()
