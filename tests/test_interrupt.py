"""Never losing work: kill -9 at random moments, and --resume after an interruption.

Real processes, real signals: astreduce runs as a subprocess on a module
whose every test sleeps a little, so that the runs last long enough to be
interrupted at many moments.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path


#: 40 functions, a slow guard, and a failing check: each test takes 20 ms or more.
PROGRAM = (
    "import time\n\n"
    + "".join(f"def unused_{i}(x):\n    y = x * {i}\n    return y + {i}\n\n" for i in range(40))
    + "def slow(value):\n    time.sleep(0.02)\n    return value\n\n"
    + "total = slow(3) + unused_4(1)\n"
    + "assert total == 12, 'My Test'\n"
)


def _run(tmp_path: Path, *options: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "astreduce", "reduce", str(tmp_path / "input.py"), "-o", str(tmp_path / "out.py"),
         "--expect", "AssertionError:My Test", "--no-format", "-q", "-j", "1", *options],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True,
    )


def _reproduces(path: Path) -> bool:
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=60)
    return done.returncode != 0 and done.stderr.strip().splitlines()[-1] == "AssertionError: My Test"


def test_kill_9_at_random_moments_leaves_a_reproducing_output(tmp_path: Path) -> None:
    (tmp_path / "input.py").write_text(PROGRAM)
    moments = random.Random(20261122).sample([i / 10 for i in range(8, 40)], 5)
    for delay in sorted(moments):
        out = tmp_path / "out.py"
        out.unlink(missing_ok=True)
        process = _run(tmp_path)
        time.sleep(delay)
        process.send_signal(signal.SIGKILL)
        process.wait(30)
        assert (tmp_path / "input.py").read_text() == PROGRAM
        if out.exists():  # before the first check of the original there is nothing to keep
            assert _reproduces(out), f"killed after {delay} s: {out.read_text()!r}"
        leftovers = [p for p in tmp_path.iterdir() if p.name.startswith(".out.py.")]
        assert not leftovers or all(p.stat().st_size >= 0 for p in leftovers)


def test_resume_after_interruption_reuses_earlier_tests(tmp_path: Path) -> None:
    (tmp_path / "input.py").write_text(PROGRAM)
    cache = tmp_path / "cache"
    # a full run without the cache, for the reference output
    started = time.monotonic()
    reference = _run(tmp_path, "--report", str(tmp_path / "full.json"))
    assert reference.wait(300) == 0
    # interrupt once the search is under way (its first result is written), a quarter of a run later:
    # a sleep measured on the reference alone fell before the search when the machine got busier
    quarter = (time.monotonic() - started) / 4
    out = tmp_path / "out.py"
    expected = out.read_text()
    out.unlink()
    full_tests = json.loads((tmp_path / "full.json").read_text())["tests"]

    first = _run(tmp_path, "--resume", "--cache-dir", str(cache), "--report", str(tmp_path / "first.json"))
    deadline = time.monotonic() + 120
    while not out.exists():
        assert first.poll() is None and time.monotonic() < deadline, "the search never wrote a result"
        time.sleep(0.01)
    time.sleep(quarter)
    first.send_signal(signal.SIGINT)
    assert first.wait(60) == 130
    earlier = json.loads((tmp_path / "first.json").read_text())
    assert earlier["interrupted"] and 0 < earlier["tests"] < full_tests

    second = _run(tmp_path, "--resume", "--cache-dir", str(cache), "--report", str(tmp_path / "second.json"))
    assert second.wait(300) == 0
    again = json.loads((tmp_path / "second.json").read_text())
    assert (tmp_path / "out.py").read_text() == expected
    assert again["resumed"] >= 0.9 * earlier["tests"], (again["resumed"], earlier["tests"])
    assert again["tests"] + again["resumed"] >= full_tests * 0.9
