"""``astreduce batch``: crash files bucketed by signature, one reduced reproducer per bucket.

Real inputs (``corpora/batch_crashes``), real runs, a real SIGINT.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from astreduce.batch import BucketJob, reduce_bucket, run_input
from astreduce.run import Run
from astreduce.oracles.options import OracleOptions
from astreduce.oracles.signature import neutral, signature_of
from astreduce.reduce.single import ReduceConfig

ROOT = Path(__file__).resolve().parent.parent
CASE = ROOT / "corpora" / "batch_crashes"
ASTREDUCE = [sys.executable, "-m", "astreduce"]


def digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def batch(*args: str | Path, cwd: Path, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ASTREDUCE, "batch", *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)


# --- signatures ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "name", "expected"),
    [
        ("list index 17 out of range", "", "list index N out of range"),
        ("<Node object at 0x7f3a2c1b9d30>", "", "<Node object at <address>>"),
        ("cannot open /tmp/astreduce-k2j3/crash_17.py: bad", "crash_17.py", "cannot open <tmp>: bad"),
        ("crash_17.py: missing 'item_42' (of 3.5)", "crash_17.py", "<input>: missing 'item_N' (of N)"),
        ("in module crash_17, line 4", "crash_17.py", "in module <input>, line N"),
        ("SIGSEGV in x86", "", "SIGSEGV in x86"),
    ],
)
def test_neutral_keeps_what_names_the_failure(text: str, name: str, expected: str) -> None:
    assert neutral(text, name) == expected


@pytest.mark.parametrize(
    ("run", "expected"),
    [
        (Run("exception", "KeyError", "'item_42'", "lookup"), "KeyError in lookup: 'item_N'"),
        (Run("exception", "builtins.ValueError", "", "<module>"), "builtins.ValueError in <module>"),
        (Run("crash", detail="killed by SIGSEGV, stderr: 'Fatal Python error at 0x55d1'"), "signal SIGSEGV"),
        (Run("crash", detail="killed by SIGABRT"), "signal SIGABRT"),
        (Run("exception", "exit 3", "error: bad header at byte 1024"), "exit 3: error: bad header at byte N"),
        (Run("timeout", detail="timed out"), "hang"),
    ],
)
def test_signature_of_a_run(run: Run, expected: str) -> None:
    assert signature_of(run, "crash_1.py") == expected


# --- the corpora folder ----------------------------------------------------------------


@pytest.fixture(scope="module")
def corpora_batch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    work = tmp_path_factory.mktemp("batch")
    before = digests(CASE / "inputs")
    done = batch(CASE / "inputs", "-o", work / "out", "--report", work / "r.json", "-q", "--no-format", "-j", "2", cwd=work)
    assert digests(CASE / "inputs") == before  # inputs are never written
    return work, done


@pytest.mark.slow  # about 20 s on a quiet 2-core machine: four reductions
def test_one_bucket_per_distinct_failure_and_the_healthy_input_listed(
    corpora_batch: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    work, done = corpora_batch
    assert done.returncode == 0, done.stderr
    expected = json.loads((CASE / "expected.json").read_text(encoding="utf-8"))
    report = json.loads((work / "r.json").read_text(encoding="utf-8"))
    found = {b["signature"]: sorted(Path(f).name for f in b["files"]) for b in report["buckets"]}
    assert found == {sig: sorted(files) for sig, files in expected["buckets"].items()}
    assert [Path(r["file"]).name for r in report["not_reproducing"]] == expected["not_reproducing"]
    assert "raises no exception" in report["not_reproducing"][0]["reason"]
    # one reduced file per bucket, and nothing else in the output folder
    reduced = [r for b in report["buckets"] for r in b["reduced"]]
    assert len(reduced) == len(expected["buckets"])
    assert sorted(p.name for p in (work / "out").iterdir()) == sorted(Path(r["output"]).name for r in reduced)
    for line in report["buckets"]:
        assert line["signature"] in done.stdout


@pytest.mark.slow
def test_each_reduced_file_still_fails_with_its_buckets_signature(
    corpora_batch: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    work, _ = corpora_batch
    report = json.loads((work / "r.json").read_text(encoding="utf-8"))
    for bucket in report["buckets"]:
        (result,) = bucket["reduced"]
        assert result["verified"] and result["input"] == bucket["files"][0]
        before, after = result["tokens"]
        assert after < before / 2, result
        output = Path(result["output"])
        assert output.name == Path(result["input"]).name  # its own name: the signature makes it neutral
        again = run_input(str(output), ReduceConfig())  # a fresh run, outside the reduction
        assert again.signature == bucket["signature"], output.read_text()


# --- a command oracle: signals and exit statuses ------------------------------------------

SEGFAULT = "import ctypes\n{before}\nctypes.string_at(0)\n"


def test_run_oracle_buckets_signals_and_exit_statuses(tmp_path: Path) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "segv_a.py").write_text(SEGFAULT.format(before="x = [1, 2, 3]\nprint(sum(x))"))
    (inputs / "segv_b.py").write_text(SEGFAULT.format(before="import os\nname = os.sep * 3\nprint(name)"))
    (inputs / "header_7.py").write_text("data = b'GIF89' * 3\nimport sys\nsys.exit(f'bad header at byte {len(data)}')\n")
    (inputs / "fine.py").write_text("print('ok')\n")
    done = batch(inputs, "-o", tmp_path / "out", "--report", tmp_path / "r.json", "--run", "{python} {file}",
                 "-q", "--no-format", "-j", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    found = {b["signature"]: sorted(Path(f).name for f in b["files"]) for b in report["buckets"]}
    assert found == {
        "signal SIGSEGV": ["segv_a.py", "segv_b.py"],
        "exit 1: bad header at byte N": ["header_7.py"],
    }
    assert [Path(r["file"]).name for r in report["not_reproducing"]] == ["fine.py"]
    segv = next(b for b in report["buckets"] if b["signature"] == "signal SIGSEGV")["reduced"][0]
    text = Path(segv["output"]).read_text()
    assert "string_at" in text and "print" not in text
    crashed = subprocess.run([sys.executable, segv["output"]], capture_output=True, timeout=30, check=False)
    assert crashed.returncode == -signal.SIGSEGV


# --- never losing work -------------------------------------------------------------------

SLOW = (
    "import time\n\n"
    + "".join(f"def unused_{i}(x):\n    return x * {i}\n\n" for i in range(25))
    + "def {name}(value):\n    time.sleep(0.02)\n    raise {error}('{name} failed')\n\n"
    + "{name}(unused_3(1))\n"
)


def test_ctrl_c_keeps_every_finished_bucket(tmp_path: Path) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    for name, error in (("alpha", "ValueError"), ("beta", "KeyError"), ("gamma", "TypeError")):
        (inputs / f"{name}.py").write_text(SLOW.format(name=name, error=error))
    before = digests(inputs)
    process = subprocess.Popen(
        [*ASTREDUCE, "batch", str(inputs), "-o", str(tmp_path / "out"), "--report", str(tmp_path / "r.json"),
         "--no-format", "-j", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert process.stderr is not None
    reducing = 0
    deadline = time.monotonic() + 120
    while reducing < 2 and time.monotonic() < deadline:  # the second bucket starts: the first is finished
        line = process.stderr.readline()
        assert line, "astreduce ended before the second bucket"
        reducing += line.startswith("astreduce: reducing ")
    time.sleep(0.3)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "interrupted; every finished bucket is in" in stderr and "Traceback" not in stderr
    assert digests(inputs) == before
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["interrupted"] is True and len(report["buckets"]) == 3
    results = [r for b in report["buckets"] for r in b["reduced"]]
    assert len(results) == 2  # the finished bucket, and the one interrupted (its best so far, verified)
    finished, stopped = results
    assert not finished["interrupted"] and stopped["interrupted"]
    for result in results:
        assert result["verified"]
        output = Path(result["output"])
        signature = next(b["signature"] for b in report["buckets"] if result in b["reduced"])
        assert run_input(str(output), ReduceConfig()).signature == signature
    assert finished["tokens"][1] < finished["tokens"][0] / 3


# --- usage ------------------------------------------------------------------------------------


def test_output_inside_an_input_directory_is_refused(tmp_path: Path) -> None:
    shutil.copytree(CASE / "inputs", tmp_path / "in")
    done = batch("in", "-o", "in/out", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"astreduce: in/out: the output would be inside the input directory {tmp_path / 'in'}; write it elsewhere"
    ]
    assert not (tmp_path / "in" / "out").exists()


def test_no_failing_input_is_exit_1_with_every_input_listed(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("print(1)\n")
    (tmp_path / "b.py").write_text("x = 2\n")
    done = batch("a.py", "b.py", "-o", "out", "--report", "r.json", "-q", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == "astreduce: no input reproduces (2 run); nothing reduced"
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["buckets"] == [] and [r["file"] for r in report["not_reproducing"]] == [
        str(tmp_path / "a.py"), str(tmp_path / "b.py")
    ]


def test_a_bucket_that_no_longer_fails_says_why(tmp_path: Path) -> None:
    path = tmp_path / "gone.py"
    path.write_text("print('fixed since the batch ran')\n")
    job = BucketJob("KeyError in lookup: 'item_N'", str(path), str(tmp_path / "out.py"), ReduceConfig(options=OracleOptions()))
    result = reduce_bucket(job)
    assert result.text is None and "raises no exception" in result.error
    assert not (tmp_path / "out.py").exists()
    assert os.listdir(tmp_path) == ["gone.py"]


def test_an_input_that_does_not_compile_is_listed_and_the_batch_goes_on(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text("x = 1\nreturn x\n")  # parses, but does not compile
    (tmp_path / "fails.py").write_text("x = 1\nraise KeyError('item_3')\n")
    broken = run_input(str(tmp_path / "broken.py"), ReduceConfig(options=OracleOptions()))
    assert broken.signature is None and "broken.py:2:1: does not compile" in broken.reason
    fails = run_input(str(tmp_path / "fails.py"), ReduceConfig(options=OracleOptions()))
    assert fails.signature is not None and fails.signature.startswith("KeyError")
