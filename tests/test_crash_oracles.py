"""Crash repros through command oracles, on the real interpreters pyenv holds here.

A segfault, a hang, a ``SystemError``, a differential between two Python
versions, and 3.12-only syntax reduced while astreduce runs on an older
Python: each reduced through the command line, the result checked by running
it again the same way.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from astreduce.interpreters import resolve_python
from astreduce.errors import UsageError

FILLER = "".join(f"def helper_{i}(x):\n    total = x\n    for k in range({i}):\n        total += k\n    return total\n\n" for i in range(40))
#: Fewer helpers for oracles whose every interesting run is slow (hangs) or repeated (-j).
SMALL_FILLER = FILLER[: FILLER.index("def helper_8(")]


def _python(version: str) -> str:
    try:
        return resolve_python(version)
    except UsageError:
        pytest.skip(f"Python {version} is not installed here")


def _reduce(tmp_path: Path, source: str, *options: str, name: str = "crash.py") -> tuple[subprocess.CompletedProcess[str], str]:
    program = tmp_path / name
    program.write_text(source)
    output = tmp_path / "out.py"
    done = subprocess.run(
        [sys.executable, "-m", "astreduce", "reduce", str(program), *options, "-o", str(output), "-q", "--no-format"],
        capture_output=True, text=True, timeout=600,
    )
    return done, output.read_text() if output.exists() else ""


def test_segfault_is_reduced_and_still_segfaults(tmp_path: Path) -> None:
    source = FILLER + "import ctypes\nprint(helper_3(2))\nctypes.string_at(0)\nprint('unreached')\n"
    done, reduced = _reduce(tmp_path, source, "--run", "{python} {file}", "--signal", "SEGV")
    assert done.returncode == 0, done.stderr
    assert "helper_" not in reduced and "string_at" in reduced
    rerun = subprocess.run([sys.executable, "-c", reduced], capture_output=True, timeout=60)
    assert rerun.returncode == -signal.SIGSEGV


def test_hang_is_reduced_with_hang_option(tmp_path: Path) -> None:
    source = SMALL_FILLER + "import time\nprint(helper_2(1))\nwhile True:\n    pass\n"
    done, reduced = _reduce(tmp_path, source, "--run", "{python} {file}", "--hang", "0.5")
    assert done.returncode == 0, done.stderr
    assert "helper_" not in reduced and "while" in reduced
    with pytest.raises(subprocess.TimeoutExpired):
        subprocess.run([sys.executable, "-c", reduced], timeout=2)


def test_system_error_signature_without_options(tmp_path: Path) -> None:
    # A real SystemError, from the C API's own argument checks: the
    # signature (exit status and last stderr line) must be reproduced exactly.
    source = FILLER + "import _testcapi\nprint(helper_1(0))\n_testcapi.raise_exception(SystemError, 1)\n"
    check = subprocess.run([sys.executable, "-c", "import _testcapi"], capture_output=True)
    if check.returncode != 0:
        pytest.skip("_testcapi is not available in this build")
    done, reduced = _reduce(tmp_path, source, "--run", "{python} {file}")
    assert done.returncode == 0, done.stderr
    assert "helper_" not in reduced
    rerun = subprocess.run([sys.executable, "-c", reduced], capture_output=True, text=True, timeout=60)
    assert rerun.returncode == 1 and rerun.stderr.strip().splitlines()[-1].startswith("SystemError")


def test_fatal_python_error_via_stderr_pattern(tmp_path: Path) -> None:
    source = FILLER + "import faulthandler\nprint(helper_4(3))\nfaulthandler._sigabrt()\n"
    done, reduced = _reduce(tmp_path, source, "--run", "{python} -X faulthandler {file}", "--signal", "ABRT", "--stderr", "Fatal Python error")
    assert done.returncode == 0, done.stderr
    assert "helper_" not in reduced and "_sigabrt" in reduced


def test_differential_between_two_python_versions(tmp_path: Path) -> None:
    old, new = _python("3.8"), _python("3.12")
    # str.removeprefix exists from 3.9: the two interpreters differ only there
    source = FILLER + "print(helper_5(2))\nprint(hasattr(str, 'removeprefix'))\nprint(helper_6(1))\n"
    done, reduced = _reduce(tmp_path, source, "--differential", f"{old} {{file}}", f"{new} {{file}}")
    assert done.returncode == 0, done.stderr
    assert "removeprefix" in reduced and "helper_" not in reduced
    outputs = {subprocess.run([p, "-c", reduced], capture_output=True, text=True).stdout for p in (old, new)}
    assert len(outputs) == 2


def test_python312_syntax_reduced_while_running_on_older_python(tmp_path: Path) -> None:
    newer = _python("3.12")
    source = (
        "type Pair[T] = tuple[T, T]\n\n"
        "class Box[T]:\n    def __init__(self, item: T) -> None:\n        self.item = item\n\n"
        "def first[T](items: list[T]) -> T:\n    return items[0]\n\n"
        + FILLER
        + "print(f\"{'nested' + f'{first([1, 2])}'}\")\nraise ValueError(f\"{Box(3).item!r:>{4}}\")\n"
    )
    if sys.version_info < (3, 12):
        with pytest.raises(SyntaxError):
            compile(source, "x", "exec")
    done, reduced = _reduce(tmp_path, source, "--python", newer, "--expect", "ValueError:   3")
    assert done.returncode == 0, done.stderr
    assert "helper_" not in reduced and "type Pair" not in reduced
    rerun = subprocess.run([newer, "-c", reduced], capture_output=True, text=True)
    assert rerun.stderr.strip().splitlines()[-1] == "ValueError:    3"


def test_interestingness_script_in_creduce_convention(tmp_path: Path) -> None:
    script = tmp_path / "interesting.sh"
    # C-Reduce style: runs in a folder holding the candidate under its own name
    script.write_text(f"#!/bin/sh\n{sys.executable} crash.py 2>&1 | grep -q 'ZeroDivisionError'\n")
    script.chmod(0o755)
    source = FILLER + "print(helper_7(1))\nx = helper_0(0)\nprint(1 / x)\n"
    done, reduced = _reduce(tmp_path, source, "--test", str(script))
    assert done.returncode == 0, done.stderr
    assert "helper_7" not in reduced and "/" in reduced


def test_parallel_and_sequential_give_the_same_output(tmp_path: Path) -> None:
    source = SMALL_FILLER[: SMALL_FILLER.index("def helper_4(")] + "import os, signal\nv = helper_3(3)\nif v > 5:\n    os.kill(os.getpid(), signal.SIGSEGV)\n"
    outputs = []
    for jobs in ("1", "3"):
        done, reduced = _reduce(tmp_path, source, "--run", "{python} {file}", "--signal", "SEGV", "-j", jobs)
        assert done.returncode == 0, done.stderr
        outputs.append(reduced)
    assert outputs[0] == outputs[1]


def test_stdin_feeds_each_candidate_to_the_command(tmp_path: Path) -> None:
    source = SMALL_FILLER + "print(helper_5(2))\nvalue = helper_1(0)\nprint(1 / value)\n"
    done, reduced = _reduce(tmp_path, source, "--run", "{python} -", "--stdin", "--stderr", "ZeroDivisionError")
    assert done.returncode == 0, done.stderr
    assert "helper_5" not in reduced and "/" in reduced
    rerun = subprocess.run([sys.executable, "-"], input=reduced, capture_output=True, text=True, timeout=60)
    assert "ZeroDivisionError" in rerun.stderr


@pytest.mark.parametrize("stdin", [False, True])
def test_a_process_started_ahead_runs_the_candidate_it_is_given(stdin: bool) -> None:
    """From the second test on, the command's process was started during the test before and
    waits at a gate: it must run the new candidate, with the limits and timeout of its own test."""
    from astreduce.oracles.command import CommandOracle, Criteria

    command = f"{sys.executable} -" if stdin else f"{sys.executable} {{file}}"
    oracle = CommandOracle([command], "candidate.py", criteria=Criteria(exit_code=3), stdin=stdin, timeout=5.0)
    try:
        outcomes = [oracle.judge(f"raise SystemExit({code})\n").outcome.name for code in (3, 0, 3, 4, 3)]
        assert outcomes == ["FAIL", "PASS", "FAIL", "PASS", "FAIL"]
        hang = oracle.judge("import time\ntime.sleep(60)\n")
        assert hang.run.ending == "timeout"
    finally:
        oracle.close()


# --- oracles that cannot work: refused at once, one line, exit 2 ---------------------------------


@pytest.mark.parametrize(
    ("options", "named"),
    [
        pytest.param(["--run", "no-such-tool-here {file}"], "'no-such-tool-here {file}'", id="run-missing-command"),
        pytest.param(
            ["--differential", "{python} {file}", "no-such-python3.8 {file}"], "'no-such-python3.8 {file}'",
            id="differential-missing-second-command",
        ),
        pytest.param(["--run", "sh -c 'exit 126'"], "exit status 126", id="run-not-executable"),
    ],
)
def test_a_command_that_cannot_run_is_a_usage_error(tmp_path: Path, options: list[str], named: str) -> None:
    """Before: every candidate 'differed' (or failed alike), and the result was an empty file with exit 0."""
    done, output = _reduce(tmp_path, "print(1)\nprint(2)\n", *options)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot run" in lines[0] and named in lines[0]
    assert "Traceback" not in done.stderr and output == ""


def test_exit_127_that_the_user_asks_for_is_a_target(tmp_path: Path) -> None:
    done, _ = _reduce(tmp_path, "import sys\nprint(1)\nsys.exit(127)\n", "--run", "{python} {file}", "--exit-code", "127")
    assert done.returncode == 0, done.stderr


def test_python_27_under_the_exec_oracle_is_refused_at_once(tmp_path: Path) -> None:
    """Before: astreduce and the 2.7 worker waited on each other's pipe for ever, --timeout or not."""
    python = _python("2.7")
    done, output = _reduce(tmp_path, 'x = 1\nassert x == 2, "two"\n', "--python", python, "--timeout", "2")
    assert done.returncode == 2, done.stderr
    line = done.stderr.strip()
    assert "\n" not in line and "Python 2.7" in line and "--run '{python} {file}'" in line
    assert output == ""


def test_python_27_through_a_command_oracle_reduces(tmp_path: Path) -> None:
    python = _python("2.7")
    done, output = _reduce(tmp_path, 'x = 1\ny = 2\nassert x == 2, "two"\n', "--python", python, "--run", "{python} {file}", "--exit-code", "1")
    assert done.returncode == 0, done.stderr
    assert "y = 2" not in output and "assert" in output


#: Positional-only parameters and a walrus: 3.8 syntax, on two lines.
NEWER_SYNTAX = 'def f(a, /):\n    return a\nif (n := 3):\n    assert f(n) == 2, "two"\n'


def test_input_that_the_chosen_python_cannot_compile_is_refused_with_its_place(tmp_path: Path) -> None:
    """Before: the SyntaxError became the target and the "result" was a line 3.6 cannot parse, exit 0."""
    python = _python("3.6")
    done, output = _reduce(tmp_path, NEWER_SYNTAX, "--python", python, name="new.py")
    assert done.returncode == 2, done.stderr
    line = done.stderr.strip()
    assert "\n" not in line and line.startswith("astreduce: new.py:1:10: does not compile under Python 3.6")
    assert "--expect SyntaxError" in line
    assert output == ""


def test_a_declared_syntax_error_is_reduced_under_the_chosen_python(tmp_path: Path) -> None:
    python = _python("3.6")
    # --timeout: a compile error takes a millisecond, so the default (2 s) is all that a loaded machine would have
    done, output = _reduce(tmp_path, NEWER_SYNTAX, "--python", python, "--expect", "SyntaxError", "--match", "type", "--timeout", "30")
    assert done.returncode == 0, done.stderr
    assert len(output) < len(NEWER_SYNTAX)
    checked = subprocess.run([python, "-c", "import sys; compile(open(sys.argv[1]).read(), 'x', 'exec')", str(tmp_path / "out.py")], capture_output=True, text=True)
    assert "SyntaxError" in checked.stderr


def test_code_that_parses_but_does_not_compile_is_refused(tmp_path: Path) -> None:
    """``ast.parse`` accepts a module-level ``return``; running it does not."""
    done, output = _reduce(tmp_path, "x = 1\nreturn x\n", name="flat.py")
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().startswith("astreduce: flat.py:2:1: does not compile under Python 3.")
    assert output == ""


@pytest.mark.parametrize(
    ("options", "suspect"),
    [
        (["--test", "./ignores.sh"], "the test script says interesting for an empty file"),
        (["--append", "alone.py"], "the --append script raises the target on its own"),
        (["--run", "{python} -c 'raise SystemExit(3)'", "--exit-code", "3"], "check that it runs {file}"),
    ],
)
def test_an_empty_result_warns_that_the_oracle_may_not_judge_the_program(
    tmp_path: Path, options: list[str], suspect: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An oracle that ignores the candidate "reduces" any input to nothing: a right answer to the wrong question."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ignores.sh").write_text("#!/bin/sh\nexit 0\n")
    (tmp_path / "ignores.sh").chmod(0o755)
    (tmp_path / "alone.py").write_text('raise ValueError("on its own")\n')
    done, output = _reduce(tmp_path, "x = 1\nprint(x)\n", *options, "--report", "r.json")
    assert done.returncode == 0, done.stderr
    assert output.strip() == ""
    assert "the result is empty, so the oracle may judge something other than the program" in done.stderr
    assert suspect in done.stderr
    assert suspect in (tmp_path / "r.json").read_text()


def test_a_result_that_is_not_empty_carries_no_such_warning(tmp_path: Path) -> None:
    done, output = _reduce(tmp_path, 'x = 1\ny = 2\nassert x == 2, "two"\n')
    assert done.returncode == 0, done.stderr
    assert "assert" in output and "empty" not in done.stderr


def _fake_python(tmp_path: Path, behaviour: str) -> Path:
    """An "interpreter" that tells its version but then, asked to run the worker, does ``behaviour``."""
    fake = tmp_path / "fakepython"
    fake.write_text(f'#!/bin/sh\nif [ "$1" = "-c" ]; then echo "3 9"; exit 0; fi\n{behaviour}\n')
    fake.chmod(0o755)
    return fake


def test_a_worker_that_exits_is_a_usage_error(tmp_path: Path) -> None:
    fake = _fake_python(tmp_path, "exit 3")
    done, output = _reduce(tmp_path, 'x = 1\nassert x == 2, "two"\n', "--python", str(fake), "--timeout", "2")
    assert done.returncode == 2, done.stderr
    line = done.stderr.strip()
    assert "\n" not in line and "worker cannot run under" in line and "--run '{python} {file}'" in line
    assert output == ""


def test_a_worker_that_never_answers_is_a_usage_error_not_a_wait(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before, astreduce waited on the worker's pipe for ever, whatever --timeout said."""
    from astreduce import reduce_source
    from astreduce.run import worker

    monkeypatch.setattr(worker, "REPLY_SECONDS", 1.0)  # the real deadline is a minute
    fake = _fake_python(tmp_path, "exec sleep 600")
    with pytest.raises(UsageError, match="worker cannot run under"):
        reduce_source('x = 1\nassert x == 2, "two"\n', python=str(fake), timeout=2)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"run": "{python} {file}", "signal": "NOPE"}, "--signal NOPE: no such signal"),
        ({"timeout": -1.0}, "--timeout must be a positive number"),
        ({"run": "{python} {file}", "hang": 0.0}, "--hang must be a positive number"),
    ],
)
def test_numbers_and_names_that_cannot_work_are_refused_before_any_run(options: dict[str, object], message: str) -> None:
    """Before, ``--signal NOPE`` and ``--timeout -1`` ran the original and said it "does not reproduce" (exit 1)."""
    from astreduce.oracles.options import OracleOptions

    with pytest.raises(UsageError, match=message):
        OracleOptions(**options).check()  # type: ignore[arg-type]


def test_signal_names_with_and_without_sig_are_accepted() -> None:
    from astreduce.oracles.options import OracleOptions

    for name in ("SEGV", "sigsegv", "abrt", "any"):
        OracleOptions(run="{python} {file}", signal=name).check()


def test_a_test_script_without_its_run_bit_is_refused_in_one_line(tmp_path: Path) -> None:
    """Before: it ran through sh, whatever its #! line said (a bash script's arrays failed as UNRESOLVED)."""
    (tmp_path / "check.sh").write_text("#!/bin/bash\narr=(1 2)\nexit 0\n")
    done, output = _reduce(tmp_path, "x = 1\n", "--test", str(tmp_path / "check.sh"))
    assert done.returncode == 2
    assert done.stderr.strip() == f"astreduce: --test {tmp_path / 'check.sh'}: not executable; make it so (chmod +x {tmp_path / 'check.sh'}) and give it a #! line"
    assert output == ""


def test_a_worker_report_right_behind_its_pid_is_read_at_once(tmp_path: Path) -> None:
    """A fast child's report can reach the pipe with its pid line, in one read: it must not wait for the deadline."""
    import time

    from astreduce.run.worker import Worker

    script = tmp_path / "both_lines.py"
    script.write_text(
        "import sys, time\n"
        "sys.stdin.readline()\n"
        "sys.stdout.write('{\"pid\": 12345}\\n{\"ending\": \"ok\"}\\n')\n"
        "sys.stdout.flush()\n"
        "time.sleep(60)\n"
    )
    worker = Worker(sys.executable, script)
    try:
        assert worker.send({"source": ""}) == 12345
        started = time.monotonic()
        assert worker.receive(started + 30) == {"ending": "ok"}
        assert worker.receive(time.monotonic() + 0.2) is None  # nothing more: the deadline ends the wait
    finally:
        worker.close()
