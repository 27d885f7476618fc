"""``astreduce compare`` as a newcomer runs it (issue 47): budgets for the whole run and per strategy, a row
for every strategy saying how it ended, the panel inside each strategy, the table after Ctrl-C, one name
per option. Real subprocesses on small inputs; small ``--max-tests``, never a clock."""

from __future__ import annotations

import csv
import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from astreduce.compare import DEFAULT_STRATEGIES

ASTREDUCE = [sys.executable, "-m", "astreduce"]

#: Thirty removable lines around a failure.
JUNK = "".join(f"junk_{i} = {i}\n" for i in range(30)) + 'raise ValueError("My Test")\n'


def astreduce(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ASTREDUCE, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=120, check=False)


def records(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as file:
        return list(csv.DictReader(file))


def test_max_tests_is_shared_and_every_strategy_has_a_row(tmp_path: Path) -> None:
    (tmp_path / "junk.py").write_text(JUNK)
    done = astreduce("compare", "junk.py", "--max-tests", "30", "-j", "1", "--csv", "t.csv", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = records(tmp_path / "t.csv")
    assert [r["strategy"] for r in rows] == list(DEFAULT_STRATEGIES) and DEFAULT_STRATEGIES[-1] == "chars"
    assert {r["ended"] for r in rows} <= {"finished", "budget"} and "budget" in {r["ended"] for r in rows}
    assert sum(int(r["tests"]) for r in rows) <= 30
    assert "stopped by the budget" in done.stdout  # the table says it in words


def test_strategy_max_tests_caps_each_strategy(tmp_path: Path) -> None:
    (tmp_path / "junk.py").write_text(JUNK)
    done = astreduce(
        "compare", "junk.py", "--strategy", "lines", "--strategy", "chars", "--strategy-max-tests", "4", "-j", "1",
        "--report", "r.json", "-q", cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    rows = json.loads((tmp_path / "r.json").read_text())["rows"]
    assert [r["strategy"] for r in rows] == ["lines", "chars"]
    assert all(r["tests"] <= 4 for r in rows) and rows[1]["ended"] == "budget"


def test_the_progress_panel_runs_inside_each_strategy(tmp_path: Path) -> None:
    (tmp_path / "junk.py").write_text(JUNK)
    done = astreduce("compare", "junk.py", "--strategy", "lines", "--strategy", "auto", "-j", "1", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert re.search(r"^lines: \[ *[\d.]+s\] lines: tests \d+", done.stderr, re.MULTILINE), done.stderr
    assert re.search(r"^auto: \[ *[\d.]+s\] delete", done.stderr, re.MULTILINE), done.stderr


def test_old_option_names_still_work_and_say_the_new_ones(tmp_path: Path) -> None:
    (tmp_path / "junk.py").write_text(JUNK)
    done = astreduce("compare", "junk.py", "--strategies", "lines,flat", "--json", "r.json", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines() == [
        "astreduce: --strategies is an old name: name each strategy with --strategy NAME (repeat it)",
        "astreduce: --json is an old name: use --report FILE",
    ]
    assert [r["strategy"] for r in json.loads((tmp_path / "r.json").read_text())["rows"]] == ["lines", "flat"]
    both = astreduce("compare", "junk.py", "--strategy", "lines", "--strategies", "flat", cwd=tmp_path)
    assert both.returncode == 2
    assert both.stderr.strip() == "astreduce: give --strategy (repeated), not also its old name --strategies"


def test_ctrl_c_between_two_strategies_keeps_the_table_csv_and_report(tmp_path: Path) -> None:
    """The original takes a second a run: a signal just after the first strategy's row lands while the second
    runs the original, outside its search, where it used to lose everything ("astreduce: interrupted")."""
    (tmp_path / "slow.py").write_text("import time\ntime.sleep(1)\njunk = 1\nraise ValueError('My Test')\n")
    said: list[str] = []
    with subprocess.Popen(
        [*ASTREDUCE, "compare", "slow.py", "--strategy", "lines", "--strategy", "chars", "--strategy-max-tests", "1",
         "-j", "1", "--csv", "t.csv", "--report", "r.json"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    ) as process:
        assert process.stderr is not None
        for line in process.stderr:  # until lines' row: chars begins
            said.append(line)
            if re.match(r"lines: \d+ tests, ", line):
                break
        time.sleep(0.3)  # chars runs the original (a second) before its search
        process.send_signal(signal.SIGINT)
        try:
            stdout, stderr = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    assert process.returncode == 130, "".join(said) + stderr
    assert "interrupted; the table holds the strategies run so far" in stderr
    table = {line.split()[0]: line for line in stdout.splitlines() if line.split()}
    assert re.search(r"\bfinished\b|stopped by the budget", table["lines"]) and "interrupted" in table["chars"]
    assert [r["strategy"] for r in records(tmp_path / "t.csv")] == ["lines", "chars"]
    rows = json.loads((tmp_path / "r.json").read_text())["rows"]
    assert [r["ended"] for r in rows][1] == "interrupted"


def test_resume_after_a_strategy_was_stopped_counts_the_tests_a_fresh_run_counts(tmp_path: Path) -> None:
    """``compare --resume`` (issue 47): a strategy stopped part way (by its budget, as Ctrl-C would) continues from
    the cache; each row counts every test its strategy needed, as an uninterrupted run counts them."""
    (tmp_path / "junk.py").write_text(JUNK)
    common = ["compare", "junk.py", "--strategy", "lines", "--strategy", "tokens", "-j", "1"]
    fresh = astreduce(*common, "--report", "fresh.json", cwd=tmp_path)
    cache = ["--resume", "--cache-dir", "cache"]
    first = astreduce(*common, *cache, "--strategy-max-tests", "4", "--report", "first.json", cwd=tmp_path)
    again = astreduce(*common, *cache, "--report", "again.json", cwd=tmp_path)
    assert (fresh.returncode, first.returncode, again.returncode) == (0, 0, 0), first.stderr + again.stderr
    rows = {name: json.loads((tmp_path / f"{name}.json").read_text())["rows"] for name in ("fresh", "first", "again")}
    assert [r["ended"] for r in rows["first"]] == ["budget", "budget"]
    assert [(r["tests"], r["tokens"]) for r in rows["again"]] == [(r["tests"], r["tokens"]) for r in rows["fresh"]]
    assert all("4 of its tests answered from an earlier run's cache (--resume)" in r["note"] for r in rows["again"])
    assert all(r["tests"] > 4 for r in rows["fresh"])
