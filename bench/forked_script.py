"""A ``--test`` script on one file: tests a second forked (the default) against new interpreters, in the same run.

A ``--test check.py`` that is Python and not executable runs in a child
forked ahead by astreduce's fork server, once the original ended the same
both ways; otherwise, and before, every test started ``python check.py
FILE``. This bench judges the same candidates with both oracles
(``CommandOracle(forked=True)`` and ``forked=False``), in alternate turns,
``-j 1``, and prints the median milliseconds a test of each, their ratio,
and the candidates the two judged differently (there must be none). The
candidates are made as a reduction makes them: the input with one more
line cut from its end each time (so some break)::

    python bench/forked_script.py                     # argparse with its check, run in the script's process
    python bench/forked_script.py --style process     # the script runs the candidate as a process of its own
    python bench/forked_script.py --input FILE --script CHECK.py --tests 60

By default the input is ``corpora/stdlib_argparse`` (built into a
temporary folder) and the script one of two written here: ``exec`` runs the
candidate (with the case's check appended) in its own process, ``process``
through ``bench/interesting.py`` in a new interpreter. Each turn runs in a
child process of its own (a fork server of its own). Run by hand, not in CI.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

#: What a turn's child runs: the oracle calibrated once, then the candidates timed; their outcomes printed.
CHILD = r"""
import json, sys, time
from pathlib import Path
from astreduce.oracles.command import CommandOracle

source, script, forked, count = Path(sys.argv[1]).read_text(), sys.argv[2], sys.argv[3] == "1", int(sys.argv[4])
oracle = CommandOracle([script], filename=Path(sys.argv[1]).name, script=True, forked=forked)
try:
    oracle.calibrate(source)
    assert (oracle._forked is not None) == forked, "the forked runs were not kept: the script ends otherwise forked"
    lines = source.splitlines(keepends=True)
    candidates = ["".join(lines[: len(lines) - 1 - i * max(1, len(lines) // (2 * count))]) for i in range(count)]
    outcomes, seconds = [], []
    for text in candidates:
        started = time.perf_counter()
        outcomes.append(oracle.judge(text).outcome.name)
        seconds.append(time.perf_counter() - started)
finally:
    oracle.close()
print(json.dumps({"outcomes": outcomes, "seconds": seconds}))
"""

EXEC_SCRIPT = '''\
"""Interesting (exit 0) when the candidate, with {check} appended, raises {exception} in this process."""
import sys

source = open(sys.argv[1]).read() + "\\n" + open({check!r}).read()
try:
    exec(compile(source, sys.argv[1], "exec"), {{"__name__": "__main__"}})
except {kind} as error:
    sys.exit(0 if str(error) == {message!r} else 1)
except BaseException:
    sys.exit(1)
sys.exit(1)
'''

PROCESS_SCRIPT = '''\
"""Interesting (exit 0) when the candidate, with {check} appended, fails with {exception} as a process of its own."""
import subprocess
import sys

done = subprocess.run([sys.executable, {interesting!r}, "--expect", {exception!r}, "--append", {check!r}, sys.argv[1]])
sys.exit(done.returncode)
'''


def argparse_case(folder: Path, style: str) -> tuple[Path, Path]:
    """``corpora/stdlib_argparse`` built in ``folder``, and a script of ``style`` for it."""
    subprocess.run([sys.executable, str(REPO / "corpora" / "stdlib_argparse" / "build.py"), str(folder)], check=True, capture_output=True)
    check, kind, message = folder / "check.py", "AssertionError", "My Test"
    values = {"check": str(check), "exception": f"{kind}:{message}", "kind": kind, "message": message,
              "interesting": str(REPO / "bench" / "interesting.py")}
    script = folder / f"test_{style}.py"
    script.write_text((EXEC_SCRIPT if style == "exec" else PROCESS_SCRIPT).format(**values))
    return folder / "input.py", script


def turn(source: Path, script: Path, forked: bool, count: int) -> dict[str, list]:  # type: ignore[type-arg]
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(source), str(script), "1" if forked else "0", str(count)],
        capture_output=True, text=True, cwd=REPO,
    )
    if done.returncode != 0:
        raise SystemExit(f"forked_script: a turn failed:\n{done.stderr[-2000:]}")
    result: dict[str, list] = json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[type-arg]
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", type=Path, help="the file (default: corpora/stdlib_argparse, built)")
    parser.add_argument("--script", type=Path, help="its --test script (Python, not executable)")
    parser.add_argument("--style", choices=("exec", "process"), default="exec", help="the script written for the default input")
    parser.add_argument("--tests", type=int, default=40, help="candidates a turn (default 40)")
    parser.add_argument("--turns", type=int, default=2, help="turns of each way, alternately (default 2)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="forked-script-") as temporary:
        if options.input is None:
            source, script = argparse_case(Path(temporary), options.style)
        elif options.script is None:
            parser.error("--input needs --script")
        else:
            source, script = options.input.resolve(), options.script.resolve()
        times: dict[bool, list[float]] = {True: [], False: []}
        outcomes: dict[bool, list[str]] = {}
        for _ in range(options.turns):
            for forked in (True, False):
                result = turn(source, script, forked, options.tests)
                times[forked] += result["seconds"]
                outcomes[forked] = result["outcomes"]
    forked_ms, plain_ms = (statistics.median(times[way]) * 1000 for way in (True, False))
    differing = sum(a != b for a, b in zip(outcomes[True], outcomes[False]))
    print(f"{'way':<16} {'ms a test':>10} {'tests/s':>8}")
    print(f"{'forked':<16} {forked_ms:>10.1f} {1000 / forked_ms:>8.1f}")
    print(f"{'new interpreter':<16} {plain_ms:>10.1f} {1000 / plain_ms:>8.1f}")
    print(f"ratio forked / new interpreter: {forked_ms / plain_ms:.2f}; outcomes that differ: {differing} of {len(outcomes[True])}")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
