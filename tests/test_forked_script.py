"""A ``--test`` script on one file, run in a forked child, judges every candidate as its own process does.

Each candidate below is judged by two calibrated command oracles: one whose
tests run the script in a child forked ahead (``python SCRIPT FILE`` as a
fork of astreduce's interpreter, the default), one with new interpreters
(``forked=False``). The verdicts and the places they name must agree, for a
script that runs the candidate in its own process and for one that runs it
as a process of its own. Real scripts, real processes, real files.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from astreduce.oracles.command import CommandOracle
from astreduce.outcome import Outcome

PROGRAM = "import json\n\n\ndef ratio(a, b):\n    return a / b\n\n\nvalues = [1, 2, 3]\nprint(json.dumps(values), ratio(sum(values), 0))\n"

#: Interesting (exit 0) when the candidate, run in this process, divides by zero.
IN_PROCESS = """\
import sys

sys.dont_write_bytecode = True
source = open(sys.argv[1]).read()
try:
    exec(compile(source, sys.argv[1], "exec"), {"__name__": "__main__"})
except ZeroDivisionError:
    sys.exit(0)
sys.exit(1)
"""

#: Interesting (exit 0) when the candidate, run as a process of its own, divides by zero (its traceback shown).
AS_A_PROCESS = """\
import subprocess
import sys

done = subprocess.run([sys.executable, sys.argv[1]], capture_output=True, text=True)
sys.stderr.write(done.stderr)
sys.exit(0 if "ZeroDivisionError" in done.stderr else 1)
"""

CANDIDATES = {
    "original": PROGRAM,
    "fixed": "print(1)\n",
    "smaller": "1 / 0\n",
    "other exception": "raise ValueError(1)\n",
    "syntax error": "def f(:\n",
    "exit status": "import sys\nsys.exit(3)\n",
    "hidden in a function": "def f():\n    return 1 / 0\n\n\nf()\n",
}


@pytest.mark.parametrize("style", ["in_process", "as_a_process"])
def test_forked_runs_judge_as_new_interpreters_do(style: str, tmp_path: Path) -> None:
    script = tmp_path / "check.py"
    script.write_text(IN_PROCESS if style == "in_process" else AS_A_PROCESS)
    forked = CommandOracle([str(script)], filename="prog.py", script=True)
    plain = CommandOracle([str(script)], filename="prog.py", script=True, forked=False)
    try:
        first = forked.calibrate(PROGRAM), plain.calibrate(PROGRAM)
        assert forked._forked is not None and plain._forked is None  # the forked runs were kept
        assert first[0].outcome is first[1].outcome is Outcome.FAIL and first[0].run.raised_at == first[1].run.raised_at
        for name, text in CANDIDATES.items():
            a, b = forked.judge(text), plain.judge(text)
            assert a.outcome is b.outcome, name
            if a.outcome is Outcome.FAIL:
                assert a.run.raised_at == b.run.raised_at, name  # where the candidate failed: the report's place
        assert forked.tests == plain.tests == 1 + len(CANDIDATES)
    finally:
        forked.close()
        plain.close()


def test_a_script_that_ends_otherwise_when_forked_runs_as_new_interpreters(tmp_path: Path) -> None:
    # the script tells a fork from a new interpreter (a module the fork server holds): the original
    # does not end the same both ways, so every test runs as a new process, and judges as one
    script = tmp_path / "check.py"
    script.write_text("import sys\nsys.exit(0 if 'astreduce' not in sys.modules else 1)\n")
    oracle = CommandOracle([str(script)], filename="prog.py", script=True)
    try:
        assert oracle.calibrate("x = 1\n").outcome is Outcome.FAIL
        assert oracle._forked is None
        assert oracle.judge("y = 2\n").outcome is Outcome.FAIL
    finally:
        oracle.close()


@pytest.mark.parametrize(
    ("why", "make"),
    [
        ("an executable script runs as it says", lambda s: os.chmod(s, 0o755) or [str(s)]),
        ("two commands", lambda s: [str(s), str(s)]),
    ],
)
def test_only_a_python_script_run_with_this_interpreter_is_forked(why: str, make, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    script = tmp_path / "check.py"
    script.write_text(f"#!{sys.executable}\nimport sys\nsys.exit(0)\n")
    oracle = CommandOracle(make(script), filename="prog.py", script=True)
    try:
        assert oracle.forkable_script() is None, why
    finally:
        oracle.close()


def test_a_candidate_not_written_as_utf8_runs_as_new_interpreters(tmp_path: Path) -> None:
    # the child writes the candidate as UTF-8; an input in another encoding is written by the oracle's encode
    script = tmp_path / "check.py"
    script.write_text("import sys\nsys.exit(0 if open(sys.argv[1], 'rb').read().startswith(b'# \\xe9') else 1)\n")
    oracle = CommandOracle([str(script)], filename="prog.py", script=True, encode=lambda text: text.encode("latin-1"))
    try:
        assert oracle.calibrate("# \u00e9\nx = 1\n").outcome is Outcome.FAIL
        assert oracle._forked is None
    finally:
        oracle.close()
