"""Hostile candidates: whatever a candidate does, astreduce and the machine stay fine.

Each snippet is judged by the real oracles (a forked child for the exec
oracle, a subprocess for the command oracle) and must come out UNRESOLVED,
within its timeout, leaving no process behind; a reduction whose candidates
turn hostile leaves the input and the output intact.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from astreduce.oracles import Target
from astreduce.oracles.command import CommandOracle, Criteria
from astreduce.oracles.execution import ExecOracle
from astreduce.run.forkserver import running_server
from astreduce.run.sandbox import MIN_CPU_TIMEOUT, Limits
from astreduce.outcome import Outcome

HOSTILE = {
    "deletes_its_folder": "import os\nfor name in os.listdir('.'):\n    os.remove(name)\nos.rmdir(os.getcwd())\nraise OSError('gone')\n",
    "writes_a_huge_file": "with open('huge', 'wb') as f:\n    while True:\n        f.write(b'x' * (1 << 20))\n",
    "forks_without_end": "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
    "allocates_without_end": "chunks = []\nwhile True:\n    chunks.append(bytearray(1 << 26))\n",
    "sleeps_forever": "import time\ntime.sleep(10_000)\n",
    "kills_its_group": "import os, signal\nos.killpg(0, signal.SIGKILL)\n",
    "closes_its_output": "import os\nos.close(1)\nos.close(2)\nraise ValueError('quiet')\n",
}


def _descendants(before: frozenset[int] = frozenset(), grace: float = 2.0) -> list[str]:
    """Live processes whose parent is this test process (its children), but those of ``before`` (alive when
    the test began: an earlier test's warm process in this worker), after up to ``grace`` seconds for killed
    ones to finish dying (the oracle collects them lazily): each as ``pid: command line``."""
    deadline = time.monotonic() + grace
    while True:
        found = [pid for pid in _live_children() if pid not in before]
        if not found or time.monotonic() >= deadline:
            return [f"{pid}: {_command_line(pid)}" for pid in found]
        time.sleep(0.02)


def _command_line(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            return file.read().replace(b"\0", b" ").decode(errors="replace")[:200]
    except OSError:
        return "?"


def _processes() -> dict[int, tuple[int, str]]:
    """Every process on the machine: pid -> (parent's pid, state letter)."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            found[int(entry)] = (int(fields[1]), fields[0])
    return found


def _live_children() -> set[int]:
    """Live processes whose parent is this one, its fork server or a room of the server (the server and its
    rooms not counted)."""
    server = running_server()
    helpers = {server.pid, *server.rooms()} if server is not None else set()
    parents = {os.getpid()} | helpers
    return {pid for pid, (parent, state) in _processes().items() if parent in parents and state != "Z" and pid not in helpers}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_exec_oracle_survives_hostile_candidate(name: str, tmp_path: Path) -> None:
    before = frozenset(_live_children())
    oracle = ExecOracle(Target.parse("AssertionError:My Test"), timeout=2.0)
    verdict = oracle.judge(HOSTILE[name])
    assert verdict.outcome is Outcome.UNRESOLVED, verdict
    oracle.close()  # ends the next test's child, forked ahead and waiting for its candidate
    assert not _descendants(before), _descendants(before)
    # the oracle still works afterwards
    assert oracle.judge("assert False, 'My Test'").outcome is Outcome.FAIL


@pytest.mark.parametrize("name", ["deletes_its_folder", "forks_without_end", "sleeps_forever", "writes_a_huge_file"])
def test_command_oracle_survives_hostile_candidate(name: str) -> None:
    before = frozenset(_live_children())
    oracle = CommandOracle([f"{sys.executable} {{file}}"], "candidate.py", criteria=Criteria(signal="SEGV"), timeout=2.0)
    verdict = oracle.judge(HOSTILE[name])
    assert verdict.outcome is not Outcome.FAIL
    oracle.close()  # stops the next test's process, started ahead and waiting at its gate
    assert not _descendants(before), _descendants(before)


def test_reduction_with_hostile_candidates_keeps_files_intact(tmp_path: Path) -> None:
    # Each hostile block sits behind `if False:`; if-to-body and hoisting make
    # candidates that run it. They must all be UNRESOLVED and harm nothing.
    before = frozenset(_live_children())
    blocks = "".join(
        f"if False:\n" + "".join(f"    {line}\n" for line in HOSTILE[name].splitlines())
        for name in ("deletes_its_folder", "forks_without_end", "writes_a_huge_file", "sleeps_forever")
    )
    source = f"import os\nvalue = 3\n{blocks}assert value == 4, 'My Test'\n"
    program = tmp_path / "hostile.py"
    program.write_text(source)
    sentinel = tmp_path / "sentinel.txt"
    sentinel.write_text("keep me")
    output = tmp_path / "out.py"
    done = subprocess.run(
        [sys.executable, "-m", "astreduce", "reduce", str(program), "--expect", "AssertionError:My Test",
         "--timeout", "2", "-o", str(output), "-q", "--no-format", "-j", "2"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert program.read_text() == source
    assert sentinel.read_text() == "keep me"
    reduced = output.read_text()
    assert "assert" in reduced and "fork" not in reduced and "sleep" not in reduced
    assert not _descendants(before), _descendants(before)


def test_calibrated_cpu_budget_ends_a_busy_hang_early_but_lets_a_sleeper_finish() -> None:
    before = frozenset(_live_children())
    oracle = ExecOracle(Target.parse("AssertionError:My Test"))
    oracle.calibrate("assert False, 'My Test'")
    assert oracle.cpu_timeout is not None and oracle.timeout is not None
    assert oracle.cpu_timeout < oracle.timeout
    oracle.timeout = 30.0  # a far wall clock: only the CPU budget can end the spin early, however loaded the machine

    verdict = oracle.judge("while True:\n    pass\n")
    # the CPU budget ended it, not the wall clock: the verdict names the budget
    assert verdict.run.ending == "timeout" and f"(budget {oracle.cpu_timeout:g} s)" in verdict.run.detail, verdict

    # sleeping past the CPU budget spends no CPU: the run is judged, not cut off
    pause = oracle.cpu_timeout + 0.3
    verdict = oracle.judge(f"import time\ntime.sleep({pause})\nassert False, 'My Test'\n")
    assert verdict.outcome is Outcome.FAIL, verdict
    oracle.close()
    assert not _descendants(before), _descendants(before)


def test_an_explicit_timeout_is_a_wall_clock_limit_without_cpu_budget() -> None:
    oracle = ExecOracle(Target.parse("AssertionError:My Test"))
    oracle.calibrate("assert False, 'My Test'", timeout=1.0)
    assert oracle.cpu_timeout is None and oracle.timeout == 1.0
    verdict = oracle.judge("import time\ntime.sleep(3)\n")
    assert verdict.run.ending == "timeout" and "ran over 1 s" in verdict.run.detail, verdict


ESCAPES = {
    "os_fork_then_setsid": (
        "import os, time\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    os.setsid()\n"
        "    time.sleep(60)\n"
        "    os._exit(0)\n"
        "open(PIDFILE, 'w').write(str(pid))\n"
        "assert False, 'My Test'\n"
    ),
    "popen_new_session": (
        "import subprocess, sys\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'], start_new_session=True)\n"
        "open(PIDFILE, 'w').write(str(child.pid))\n"
        "assert False, 'My Test'\n"
    ),
}


@pytest.mark.skipif(not os.access("/sys/fs/cgroup/pids", os.W_OK), reason="needs a writable pids cgroup (root)")
@pytest.mark.parametrize("name", sorted(ESCAPES))
def test_a_grandchild_that_leaves_the_process_group_is_killed_too(name: str, tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    oracle = ExecOracle(Target.parse("AssertionError:My Test"), timeout=20.0, limits=Limits(writable=(str(tmp_path),)))
    verdict = oracle.judge(f"PIDFILE = {str(pidfile)!r}\n" + ESCAPES[name])
    assert verdict.outcome is Outcome.FAIL, verdict
    escaped = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{escaped}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    break
        except FileNotFoundError:
            break
        time.sleep(0.05)
    else:
        os.kill(escaped, 9)
        pytest.fail(f"process {escaped} outlived its test")


@pytest.mark.skipif(not os.access("/sys/fs/cgroup/pids", os.W_OK), reason="needs a writable pids cgroup (root)")
def test_a_cgroup_whose_process_still_lives_is_killed_and_drains_while_the_next_test_runs() -> None:
    """A test's end does not wait for its killed process to exit: the cgroup drains, is looked at again when the
    next cgroup is wanted, and serves again once empty; what lived in it is dead."""
    from astreduce.run import cgroups

    cap = cgroups.ProcessGroupCap(16)
    path = cap.path
    assert path is not None
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])  # no audit event shows it
    try:
        cap.join(sleeper.pid)
        assert not cap.unused()
        cap.release_unused()
        assert cap.path is None and (path, 16) in cgroups._draining  # handed back at once, not waited for
        assert sleeper.wait(timeout=10) == -9  # killed
        following = cgroups.ProcessGroupCap(16)
        assert (path, 16) not in cgroups._draining and following.path == path  # drained, then served again
        assert following.unused()
        following.kill_all()
    finally:
        sleeper.kill()
        sleeper.wait()


def _processes_mentioning(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                    if marker.encode() in cmdline.read():
                        found.append(int(entry))
            except OSError:
                continue
    return found


def _below(root: int) -> set[int]:
    """The live processes below ``root`` (its children, theirs, ...)."""
    children: dict[int, list[int]] = {}
    for pid, (parent, state) in _processes().items():
        if state not in ("Z", "X"):
            children.setdefault(parent, []).append(pid)
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _living(pids: set[int]) -> set[int]:
    processes = _processes()
    return {pid for pid in pids if pid in processes and processes[pid][1] not in ("Z", "X")}


@pytest.mark.parametrize("oracle", [["--run", "{python} {file}", "--hang", "1"], ["--expect", "RuntimeError"]])
def test_candidates_die_with_a_killed_reducer(oracle: list[str], tmp_path: Path) -> None:
    """kill -9 of astreduce while candidates sleep: none of them outlives it (the parent-death signal)."""
    marker = f"sleeper_{os.getpid()}_{len(oracle)}"
    source = tmp_path / f"{marker}.py"
    body = "import time\ntime.sleep(60)\n" if "--hang" in oracle else "import time\nx = 1\ntime.sleep(60)\nraise RuntimeError\n"
    source.write_text("".join(f"v{i} = {i}\n" for i in range(20)) + body)
    process = subprocess.Popen(
        [sys.executable, "-m", "astreduce", "reduce", str(source), *oracle, "--timeout", "30", "-j", "2",
         "-o", str(tmp_path / "out.py"), "-q", "--no-format"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    # the candidates run as commands naming the file, or in children of the fork server (astreduce's child)
    deadline = time.monotonic() + 180  # generous: a loaded machine is slow, not wrong
    while len(_below(process.pid)) < 3:
        assert time.monotonic() < deadline, "no candidate started"
        time.sleep(0.1)
    time.sleep(0.5)  # a test under way, and the spare forked for the next
    below = _below(process.pid)
    process.kill()
    process.wait(30)
    deadline = time.monotonic() + 30
    while (_living(below) or _processes_mentioning(marker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _living(below) == set() and _processes_mentioning(marker) == []


def test_the_cpu_budget_follows_the_runs_that_reproduce() -> None:
    # the original spins for a while before it fails: its budget is ten times that;
    # once a quick candidate reproduces, a runaway one is cut after ten times its CPU (at least MIN_CPU_TIMEOUT)
    oracle = ExecOracle(Target.parse("AssertionError:My Test"))
    # it spins for 0.2 s of its own CPU: its run measures a little less (0.148 s for 0.15 once), still over 0.15
    slow = "import time\nend = time.process_time() + 0.2\nwhile time.process_time() < end:\n    pass\nassert False, 'My Test'\n"
    original = oracle.calibrate(slow)
    calibrated = max(MIN_CPU_TIMEOUT, 10 * original.run.seconds)
    assert oracle.cpu_timeout == pytest.approx(calibrated) and calibrated >= 1.5
    quick = oracle.judge("assert False, 'My Test'\n")
    assert quick.outcome is Outcome.FAIL
    # the budget chosen follows the CPU the quick run's child reported, whatever the load made its seconds;
    # the child counts its CPU from its own start and astreduce the seconds from its own, so a run of half a
    # millisecond may report a little more CPU than seconds (0.55 against 0.46 ms once): a few ms of slack
    assert quick.run.cpu is not None and 0 <= quick.run.cpu <= quick.run.seconds + 0.005
    chosen = min(calibrated, max(MIN_CPU_TIMEOUT, 10 * quick.run.cpu))
    assert oracle.cpu_timeout == pytest.approx(chosen) and chosen < calibrated
    verdict = oracle.judge("while True:\n    pass\n")
    assert verdict.run.ending == "timeout" and f"(budget {chosen:g} s)" in verdict.run.detail, verdict
    oracle.close()


def test_a_waiting_child_leaves_with_its_folder_when_astreduce_is_killed(tmp_path: Path) -> None:
    # each test's child is forked ahead and waits in a folder of its own: a
    # reducer killed with SIGKILL cannot clean up, so the child must
    script = tmp_path / "owner.py"
    script.write_text(
        "import sys, time\n"
        "from astreduce.oracles import Target\n"
        "from astreduce.oracles.execution import ExecOracle\n"
        "oracle = ExecOracle(Target.parse('AssertionError:My Test'))\n"
        "oracle.judge(\"assert False, 'My Test'\")\n"
        "print(oracle._spare.workdir, flush=True)\n"
        "time.sleep(60)\n"
    )
    with subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True) as owner:
        assert owner.stdout is not None
        folder = Path(owner.stdout.readline().strip())
        assert folder.is_dir()
        owner.kill()
    deadline = time.monotonic() + 10
    while folder.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not folder.exists()


_CLAIMER = (
    "import sys, time\n"
    "from astreduce.run.sandbox import make_workdir\n"
    "folders = [make_workdir() for _ in range(2)]\n"
    "open(folders[0] + '/left.txt', 'w').write('a test that never ended')\n"
    "print(*folders, flush=True)\n"
    "time.sleep(60)\n"
)


def _claim(tmp: Path) -> tuple[subprocess.Popen[str], list[Path]]:
    """A process that made two test folders under ``tmp`` and holds them."""
    holder = subprocess.Popen([sys.executable, "-c", _CLAIMER], stdout=subprocess.PIPE, text=True, env={**os.environ, "TMPDIR": str(tmp)})
    assert holder.stdout is not None
    return holder, [Path(f) for f in holder.stdout.readline().split()]


def _sweep(tmp: Path) -> None:
    """What the next astreduce does before its first test: make a folder of its own (and exit)."""
    subprocess.run([sys.executable, "-c", "from astreduce.run.sandbox import make_workdir; make_workdir()"],
                   env={**os.environ, "TMPDIR": str(tmp)}, check=True, timeout=60)


def test_the_folders_of_a_killed_astreduce_go_with_the_next_one(tmp_path: Path) -> None:
    """kill -9 leaves a test's folders behind (the command oracle's, say): the next astreduce removes
    them, and never the folders of one that still runs."""
    dead, dead_folders = _claim(tmp_path)
    alive, alive_folders = _claim(tmp_path)
    try:
        dead.kill()
        dead.communicate(timeout=30)
        assert all(f.is_dir() for f in dead_folders) and (dead_folders[0] / "left.txt").exists()
        (tmp_path / "astreduce-*.lock").write_text("")  # anyone's file, named as a glob of every claim
        _sweep(tmp_path)
        assert not any(f.exists() for f in dead_folders)
        assert all(f.is_dir() for f in alive_folders)
        claims = [p.name for p in tmp_path.glob("astreduce-*.lock") if p.name != "astreduce-*.lock"]
        assert len(claims) == 1  # the live one's claim; the sweeper's went at its exit
    finally:
        for holder in (dead, alive):
            holder.kill()
            holder.communicate(timeout=30)
    _sweep(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["astreduce-*.lock"]
