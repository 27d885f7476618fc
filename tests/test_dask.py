"""``--dask ADDRESS``: tests on the workers of a real local Dask cluster (``dask_cluster`` in conftest.py).

The cluster's results must be those of a local run (the same output, the
same number of tests), each test must run in a worker's sandbox as it would
here, and the report must say which worker ran how many tests.
"""

from __future__ import annotations

import json
import pickle
import sys
import time
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from astreduce.cli import main
from astreduce.errors import UsageError
from astreduce.oracles.command import CommandOracle
from astreduce.oracles.execution import ExecOracle
from astreduce.oracles.options import RetryingOracle
from astreduce.outcome import Outcome
from astreduce.search import cluster as cluster_module
from astreduce.oracles.recipe import rebuild, recipe_of
from astreduce.search.cluster import connect

#: A crash repro: the interpreter dies of SIGSEGV once ``crash`` sees a big box.
CRASH = '''\
import os
import signal


class Box:
    def __init__(self, size):
        self.size = size


def crash(box):
    if box.size > 3:
        os.kill(os.getpid(), signal.SIGSEGV)


print("a b".split())
crash(Box(5))
'''

#: Fails only where a local test runs: as __main__, under its own name, in a sandbox folder of its own.
SANDBOXED = '''\
import os


where = os.path.basename(os.getcwd())
data = [v + 1 for v in [1, 2, 3]]
if __name__ == "__main__" and __file__.endswith("prog.py") and where.startswith("astreduce-"):
    raise AssertionError("My Test")
'''


def astreduce(*args: str | Path, cwd: Path) -> Result:
    """The command line, run in this process (``python -m astreduce`` would import distributed again
    for every run, seconds each); ``@NAME`` stands for the file NAME in ``cwd``."""
    words = [str(cwd / a[1:]) if isinstance(a, str) and a.startswith("@") else str(a) for a in args]
    return CliRunner().invoke(main, words, catch_exceptions=False)


def reduce_both_ways(tmp_path: Path, address: str, text: str, *oracle: str) -> tuple[dict[str, object], dict[str, object], str]:
    """Reduce ``text`` on the cluster and with ``-j 2``: both outputs must agree; both reports, the cluster run's stderr."""
    (tmp_path / "prog.py").write_text(text)
    runs = {}
    for name, where in (("dask", ["--dask", address]), ("local", ["-j", "2"])):
        run = astreduce(
            "reduce", "@prog.py", *oracle, *where, "-o", f"@{name}.py", "--report", f"@{name}.json", "--no-format",
            cwd=tmp_path,
        )
        assert run.exit_code == 0, run.stderr
        runs[name] = run
    assert (tmp_path / "dask.py").read_text() == (tmp_path / "local.py").read_text()
    on_cluster = json.loads((tmp_path / "dask.json").read_text())
    here = json.loads((tmp_path / "local.json").read_text())
    return on_cluster, here, runs["dask"].stderr


def test_a_crash_reduced_on_the_cluster_is_the_local_result(tmp_path: Path, dask_cluster: str) -> None:
    on_cluster, here, stderr = reduce_both_ways(
        tmp_path, dask_cluster, CRASH, "--run", "{python} {file}", "--signal", "SEGV", "--strategy", "lines"
    )
    assert "os.kill" in (tmp_path / "dask.py").read_text()
    assert on_cluster["tests"] == here["tests"]
    assert here["workers"] == {}
    workers = on_cluster["workers"]
    assert isinstance(workers, dict) and set(workers) == {"w1", "w2"}
    # every test of the search ran on a worker (a few more ended there before the search passed over them)
    assert sum(workers.values()) >= on_cluster["tests"]  # type: ignore[operator]  # JSON numbers
    assert f"tests per worker: w1 {workers['w1']}, w2 {workers['w2']}" in stderr


def test_the_exec_oracle_runs_each_test_in_a_workers_sandbox(tmp_path: Path, dask_cluster: str) -> None:
    on_cluster, here, _ = reduce_both_ways(tmp_path, dask_cluster, SANDBOXED, "--strategy", "lines")
    reduced = (tmp_path / "dask.py").read_text()
    assert 'raise AssertionError("My Test")' in reduced and "data" not in reduced
    assert on_cluster["tests"] == here["tests"]
    assert sum(on_cluster["workers"].values()) >= on_cluster["tests"]  # type: ignore[union-attr]  # a dict in JSON


def test_compare_on_the_cluster(tmp_path: Path, dask_cluster: str) -> None:
    (tmp_path / "prog.py").write_text(CRASH)
    run = astreduce(
        "compare", "@prog.py", "--strategy", "lines", "--run", "{python} {file}", "--signal", "SEGV",
        "--dask", dask_cluster, "--report", "@table.json", cwd=tmp_path,
    )
    assert run.exit_code == 0, run.stderr
    assert "tests per worker: w1 " in run.stderr
    rows = json.loads((tmp_path / "table.json").read_text())
    assert "os.kill" in json.dumps(rows)


def has_segv(text: str) -> bool:
    return "SIGSEGV" in text and "crash(" in text


def test_a_predicate_travels_to_the_workers(dask_cluster: str) -> None:
    from astreduce.reduce.single import reduce_source

    cluster = connect(dask_cluster)
    try:
        on_cluster = reduce_source(CRASH, interesting=lambda text: "SIGSEGV" in text and "crash(" in text, cluster=cluster, jobs=2, strategy="lines")
    finally:
        cluster.close()
    here = reduce_source(CRASH, interesting=has_segv, jobs=2, strategy="lines")
    assert on_cluster.text == here.text
    assert on_cluster.tests == here.tests
    assert set(on_cluster.workers) <= {"w1", "w2"} and sum(on_cluster.workers.values()) >= on_cluster.tests


def test_an_unreachable_cluster_is_one_line_and_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("distributed")
    monkeypatch.setattr(cluster_module, "CONNECT_TIMEOUT", 0.5)
    (tmp_path / "prog.py").write_text(CRASH)
    result = CliRunner().invoke(
        main, ["reduce", str(tmp_path / "prog.py"), "--run", "{python} {file}", "--dask", "tcp://127.0.0.1:1"]
    )
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("astreduce: cannot reach the Dask scheduler at tcp://127.0.0.1:1: ")
    assert not (tmp_path / "prog.reduced.py").exists()


def test_without_distributed_dask_says_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed raises ImportError
    (tmp_path / "prog.py").write_text(CRASH)
    result = CliRunner().invoke(main, ["compare", str(tmp_path / "prog.py"), "--dask", "tcp://127.0.0.1:8786"])
    assert result.exit_code == 2
    assert result.stderr == "astreduce: --dask needs the distributed package: pip install 'astreduce[dask]'\n"


#: A package whose entry fails through pieces of two of its modules; one module is not needed.
TREE = {
    "main.py": "from pkg.rates import rate\nfrom pkg.report import total\n\nassert total([1, 2], rate('EUR')) == 3, 'wrong total'\n",
    "pkg/__init__.py": "",
    "pkg/rates.py": "RATES = {'EUR': 1.1, 'USD': 1.0}\n\n\ndef rate(code):\n    return RATES[code]\n",
    "pkg/report.py": "def total(values, rate):\n    return round(sum(values) * rate, 1)\n\n\ndef header():\n    return 'report'\n",
    "pkg/unused.py": "VALUE = 42\n",
}


def test_a_tree_reduced_on_the_cluster_is_the_local_result(tmp_path: Path, dask_cluster: str) -> None:
    for path, text in TREE.items():
        (tmp_path / "tree" / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "tree" / path).write_text(text)
    reports = {}
    for name, where in (("dask", ["--dask", dask_cluster]), ("local", ["-j", "2"])):
        run = astreduce(
            "reduce", "@tree", "--entry", "main.py", *where, "-o", f"@{name}", "--report", f"@{name}.json", "-q", cwd=tmp_path,
        )
        assert run.exit_code == 0, run.stderr
        reports[name] = json.loads((tmp_path / f"{name}.json").read_text())
    trees = {name: {p.relative_to(tmp_path / name).as_posix(): p.read_text() for p in (tmp_path / name).rglob("*") if p.is_file()} for name in reports}
    assert trees["dask"] == trees["local"] and "pkg/unused.py" not in trees["local"]
    assert reports["dask"]["tests"] == reports["local"]["tests"]


#: A project with one failing test: the module's bug and a helper it does not need.
PYTEST_PROJECT = {
    "calc/__init__.py": "",
    "calc/ops.py": "def mean(values):\n    return sum(values) / (len(values) + 1)\n\n\ndef spread(values):\n    return max(values) - min(values)\n",
    "tests/test_ops.py": (
        "from calc.ops import mean, spread\n\n\ndef test_mean():\n    assert mean([2, 4]) == 3\n\n\n"
        "def test_spread():\n    assert spread([2, 4]) == 2\n"
    ),
}


@pytest.mark.slow  # 40 s: a whole project's reduction twice; the other tests here keep the cluster in the suite
def test_a_pytest_node_reduced_on_the_cluster_is_the_local_result(tmp_path: Path, dask_cluster: str) -> None:
    project = tmp_path / "project"
    for path, text in PYTEST_PROJECT.items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text)
    node = "tests/test_ops.py::test_mean"
    reports = {}
    for name, where in (("dask", ["--dask", dask_cluster]), ("local", ["-j", "2"])):
        run = astreduce(
            "pytest", node, "--root", "@project", *where, "-o", f"@{name}", "--report", f"@{name}.json", "-q", cwd=tmp_path,
        )
        assert run.exit_code == 0, run.stderr
        reports[name] = json.loads((tmp_path / f"{name}.json").read_text())
    trees = {name: {p.relative_to(tmp_path / name).as_posix(): p.read_text() for p in (tmp_path / name).rglob("*") if p.is_file()} for name in reports}
    assert trees["dask"] == trees["local"]
    assert reports["dask"]["tests"] == reports["local"]["tests"] and reports["dask"]["verified"]


def test_a_recipe_carries_settings_not_live_parts() -> None:
    exec_oracle = ExecOracle(filename="prog.py", timeout=3.0, cpu_timeout=0.5, search_path="/somewhere")
    exec_oracle.judge("x = 1\n")  # it now holds a spare child, waiting
    retrying = RetryingOracle(exec_oracle, 3)
    try:
        recipe = pickle.loads(pickle.dumps(recipe_of(retrying)))
    finally:
        exec_oracle.close()
    rebuilt = rebuild(recipe)
    assert isinstance(rebuilt, RetryingOracle) and rebuilt.retries == 3
    inner = rebuilt.inner
    assert isinstance(inner, ExecOracle)
    assert (inner.filename, inner.timeout, inner.cpu_timeout, inner.search_path) == ("prog.py", 3.0, 0.5, "/somewhere")
    assert inner._spare is None and inner.tests == 0
    command = CommandOracle(commands=["{python} {file}"], timeout=2.0)
    assert rebuild(recipe_of(command)).identity == command.identity  # type: ignore[attr-defined]  # a CommandOracle


def test_cluster_map_runs_whole_jobs_in_order(dask_cluster: str) -> None:
    def square_or_fail(n: int) -> int:  # defined here: pickled by value (the workers cannot import test modules)
        if n < 0:
            raise UsageError(f"negative: {n}")
        return n * n

    cluster = connect(dask_cluster)
    try:
        assert cluster.threads == 2
        assert cluster.map(square_or_fail, range(8)) == [n * n for n in range(8)]
        with pytest.raises(UsageError, match="negative: -1"):  # astreduce's own errors come back as they are
            cluster.map(square_or_fail, [1, -1])
    finally:
        cluster.close()


def _running(argv: list[str]) -> bool:
    """Whether a process whose command line starts with ``argv`` runs on this machine."""
    wanted = "\0".join(argv).encode() + b"\0"
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "cmdline").read_bytes().startswith(wanted):
                return True
        except OSError:
            pass
    return False


def test_a_cancelled_test_is_killed_on_its_worker(dask_cluster: str) -> None:
    sleeping = ["sleep", f"{600 + uuid.uuid4().int % 1000 / 1000:.3f}"]  # a command line no one else runs
    cluster = connect(dask_cluster)
    try:
        slow = cluster.adopt(CommandOracle(commands=[" ".join(sleeping) + "; cat {file}"], timeout=1200.0))
        started = [slow.start(f"# {n}\n") for n in range(2)]  # one on each worker
        deadline = time.monotonic() + 60
        while not _running(sleeping) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _running(sleeping)
        for pending in started:
            pending.cancel()
        # the workers look every tenth of a second; uncancelled, the sleeps would run for ten minutes
        deadline = time.monotonic() + 20
        while _running(sleeping) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _running(sleeping)
        quick = cluster.adopt(CommandOracle(commands=["true {file}"], timeout=120.0))
        assert quick.judge("a = 1\n").outcome is Outcome.PASS  # the workers are free again
        slow.close()
        quick.close()
    finally:
        cluster.close()


BATCH = {
    "a.py": "def lookup(table, key):\n    return table[key]\n\nitems = {'x': 1}\nlookup(items, 'item_7')\n",
    "b.py": "import os\nnames = ['p', 'q']\n\ndef lookup(table, key):\n    return table[key]\n\nlookup({}, 'item_12')\nprint(names)\n",
    "c.py": "def check(n):\n    if n > 2:\n        raise RuntimeError('too many: 5')\n\ncheck(5)\n",
    "healthy.py": "print('fine')\n",
}


def test_batch_spreads_whole_files_over_the_cluster_with_the_local_buckets(
    tmp_path: Path, dask_cluster: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same buckets, the same reduced files, the same report as a run here; the inputs never written.

    The paths are relative to the working directory here, which is not the workers' own.
    """
    inputs = tmp_path / "in"
    inputs.mkdir()
    for name, text in BATCH.items():
        (inputs / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    reports = {}
    for name, where in (("dask", ["--dask", dask_cluster]), ("local", ["-j", "2"])):
        run = CliRunner().invoke(
            main, ["batch", "in", *where, "-o", name, "--report", f"{name}.json", "--no-format", "-q"], catch_exceptions=False,
        )
        assert run.exit_code == 0, run.stderr
        reports[name] = json.loads((tmp_path / f"{name}.json").read_text())
    buckets = {name: [(b["signature"], b["files"]) for b in report["buckets"]] for name, report in reports.items()}
    assert buckets["dask"] == buckets["local"] and len(buckets["local"]) == 2
    assert [r["file"] for r in reports["dask"]["not_reproducing"]] == [str(inputs / "healthy.py")]
    produced = {name: sorted(p.name for p in (tmp_path / name).iterdir()) for name in ("dask", "local")}
    assert produced["dask"] == produced["local"] and len(produced["local"]) == 2
    for file in produced["local"]:
        assert (tmp_path / "dask" / file).read_text() == (tmp_path / "local" / file).read_text()
    assert {p.name: p.read_text() for p in inputs.iterdir()} == BATCH
