"""Strange input from issue 7's list that test_inputs.py does not cover:
an empty file, very long lines, a 100,000-line file, and flaky oracles."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def _astreduce(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "astreduce", *args], capture_output=True, text=True, timeout=timeout)


def test_empty_file_exits_1_saying_it_raises_nothing(tmp_path: Path) -> None:
    empty = tmp_path / "empty.py"
    empty.write_bytes(b"")
    done = _astreduce("reduce", str(empty), "-q")
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "raises no exception" in done.stderr
    assert empty.read_bytes() == b""


def test_very_long_lines(tmp_path: Path) -> None:
    items = ", ".join(str(i) for i in range(20_000))  # one line of about 110,000 characters
    program = tmp_path / "long.py"
    program.write_text(f"data = [{items}]\nother = '{'x' * 50_000}'\nassert sum(data) < 0, 'My Test'\n")
    done = _astreduce("reduce", str(program), "-q", "--no-format", "-o", str(tmp_path / "out.py"), "--expect", "AssertionError:My Test")
    assert done.returncode == 0, done.stderr
    reduced = (tmp_path / "out.py").read_text()
    assert len(reduced) < 100 and "assert" in reduced


@pytest.mark.slow
def test_hundred_thousand_line_file(tmp_path: Path) -> None:
    lines = [f"value_{i} = {i}" for i in range(100_000)]
    lines[73_512] = "raise ValueError('needle')"
    program = tmp_path / "big.py"
    program.write_text("\n".join(lines) + "\n")
    done = _astreduce("reduce", str(program), "-q", "--no-format", "-o", str(tmp_path / "out.py"), "--expect", "ValueError:needle", "--timeout", "30")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out.py").read_text().strip() == "raise ValueError('needle')"


FLAKY = "import random, os\nrandom.seed(os.urandom(8))\nx = 1\nif random.random() < 0.5:\n    raise ValueError('sometimes')\n"


def test_flaky_oracle_is_detected_and_reported(tmp_path: Path) -> None:
    # fails on every other run, counted in a file: the first run fails, the second passes
    counter = tmp_path / "runs"
    program = tmp_path / "flaky.py"
    program.write_text(
        "import os\n"
        f"path = {str(counter)!r}\n"
        "runs = int(open(path).read()) if os.path.exists(path) else 0\n"
        "open(path, 'w').write(str(runs + 1))\n"
        "if runs % 2 == 0:\n"
        "    raise ValueError('sometimes')\n"
    )
    done = _astreduce("reduce", str(program), "-q", "--expect", "ValueError:sometimes", "--allow-write", str(tmp_path))
    assert done.returncode == 1, done.stderr
    assert "reliably" in done.stderr
    assert "FAIL" in done.stderr and "PASS" in done.stderr and "--retries" in done.stderr


def test_randomly_flaky_program_is_reported_or_rejected(tmp_path: Path) -> None:
    """A program that fails half of the time: exit 0 only when all three first runs failed."""
    program = tmp_path / "flaky.py"
    program.write_text(FLAKY)
    done = _astreduce("reduce", str(program), "-q", "--expect", "ValueError:sometimes")
    assert done.returncode in (0, 1), done.stderr
    assert len(done.stderr.strip().splitlines()) <= 1


def test_retries_accept_only_repeated_reproductions(tmp_path: Path) -> None:
    program = tmp_path / "steady.py"
    program.write_text("import os\nx = 1\ny = 2\nraise ValueError('always')\n")
    done = _astreduce("reduce", str(program), "-q", "--no-format", "--retries", "3", "-o", str(tmp_path / "out.py"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out.py").read_text().strip() == "raise ValueError('always')"
