"""``astreduce isolate --git GOOD BAD``: a history of 30 commits built here, one of which breaks a test.

What is shown here, with the real command in a subprocess:

* the patch found between the first and the last commit applies to GOOD's
  files with ``patch -p1``, makes GOOD fail as BAD does, and is at most twice
  the changed lines of the commit's cause (one edited line);
* a ``--test`` script and ``--node`` give the same patch;
* the repository is left as it was: ``git status --porcelain`` (an
  untracked file, a change staged and one not), the index file, the refs,
  HEAD and the worktree list.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
from io import BytesIO
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("git") is None or shutil.which("patch") is None, reason="needs git and patch")

CORE = '''"""Numbers of a small statistics package."""


def mean(values):
    """The arithmetic mean."""
    total = 0
    for value in values:
        total += value
    return total / len(values)


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2
'''

#: The commit that breaks ``test_mean``: NEW's ``mean`` is rewritten around its one faulty line (``//``).
BREAKING = '''def mean(values):
    """The arithmetic mean of a non-empty sequence."""
    values = list(values)
    if not values:
        raise ValueError("mean of nothing")
    total = sum(values)
    return total // len(values)
'''

TESTS = '''from calc.core import mean, median


def test_mean():
    assert mean([1, 2]) == 1.5


def test_median():
    assert median([3, 1, 2]) == 2
'''

CHECK = """#!/bin/sh
cd "$1" || exit 2
out="$(PYTHONDONTWRITEBYTECODE=1 PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 "{python}" -m pytest -q -x -p no:cacheprovider tests/test_core.py::test_mean 2>&1)"
[ $? -eq 1 ] || exit 1
printf '%s\\n' "$out" | grep -qF 'assert 1 == 1.5'
"""


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_AUTHOR_DATE": "2020-01-01T00:00:00", "GIT_COMMITTER_DATE": "2020-01-01T00:00:00"}
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True, env=env)
    return done.stdout


def _write(repo: Path, path: str, text: str) -> None:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_text(text, encoding="utf-8")


def _commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def build_history(repo: Path) -> None:
    """30 commits: helpers added to two modules, docstrings and ``median`` rewritten, tests added; commit 13 breaks ``mean``."""
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    files = {
        "calc/__init__.py": '"""calc."""\n',
        "calc/core.py": CORE,
        "calc/text.py": '"""Formatting."""\n',
        "calc/units.py": '"""Units."""\n\nFACTORS = {"m": 1.0}\n',
        "tests/test_core.py": TESTS,
        "conftest.py": "",
        "README.md": "calc\n",
    }
    for path, text in files.items():
        _write(repo, path, text)
    _commit(repo, "commit 0: calc")
    for number in range(1, 30):
        if number == 13:
            core = (repo / "calc/core.py").read_text(encoding="utf-8")
            start, end = core.index("def mean("), core.index("def median(")
            _write(repo, "calc/core.py", core[:start] + BREAKING + "\n\n" + core[end:])
        elif number % 3 == 0:
            with (repo / "calc/text.py").open("a", encoding="utf-8") as text:
                text.write(f"\n\ndef label_{number}(value):\n    width = {number}\n    return str(value).rjust(width)\n")
        elif number % 3 == 1:
            _write(repo, "calc/units.py", (repo / "calc/units.py").read_text(encoding="utf-8").replace(
                "FACTORS = {", f'FACTORS = {{"u{number}": {number}.0, '))
        elif number == 20:
            core = (repo / "calc/core.py").read_text(encoding="utf-8")
            _write(repo, "calc/core.py", core.replace("    ordered = sorted(values)\n", '    """The middle value."""\n    ordered = sorted(values)\n'))
        else:
            _write(repo, f"tests/test_more_{number}.py", f"from calc.text import *  # noqa\n\n\ndef test_{number}():\n    assert {number} == {number}\n")
        _write(repo, "README.md", (repo / "README.md").read_text(encoding="utf-8") + f"change {number}\n")
        _commit(repo, f"commit {number}")


def state(repo: Path) -> dict[str, object]:
    """What the user sees of the repository: status, refs, HEAD, worktrees, stashes, and the index file's bytes."""
    index = (repo / ".git" / "index").read_bytes()
    return {
        "index": index,
        "status": git(repo, "status", "--porcelain", "--untracked-files=all"),
        "refs": git(repo, "for-each-ref"),
        "head": git(repo, "rev-parse", "HEAD") + git(repo, "symbolic-ref", "HEAD"),
        "worktrees": git(repo, "worktree", "list", "--porcelain"),
        "files": {p.relative_to(repo).as_posix(): p.read_bytes() for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts},
    }


def isolate(repo: Path, oracle: list[str], out: Path) -> dict[str, object]:
    """``astreduce isolate --git main~29 main`` in ``repo``: the report, with the patch under ``"patch"``."""
    report = out.with_suffix(".json")
    done = subprocess.run(
        [sys.executable, "-m", "astreduce", "isolate", "--git", "main~29", "main", *oracle, "-j", "2", "-o", str(out),
         "--report", str(report)],
        cwd=repo, capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stderr
    data: dict[str, object] = json.loads(report.read_text(encoding="utf-8"))
    data["patch"] = out.read_text(encoding="utf-8")
    data["stderr"] = done.stderr
    return data


@pytest.mark.slow  # about 50 s on a slow 2-core machine; the isolate tests of a history keep the git path in the suite
def test_git_history_of_30_commits(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    build_history(repo)
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "30"
    # the user's own work in progress: an untracked file, a staged change, a change not staged
    _write(repo, "notes.txt", "mine\n")
    _write(repo, "calc/text.py", (repo / "calc/text.py").read_text(encoding="utf-8") + "# staged\n")
    git(repo, "add", "calc/text.py")
    _write(repo, "README.md", "edited, not staged\n")
    check = tmp_path / "check.sh"
    check.write_text(CHECK.format(python=sys.executable), encoding="utf-8")
    check.chmod(0o755)
    before = state(repo)
    by_test = isolate(repo, ["--test", str(check)], tmp_path / "test.diff")
    assert state(repo) == before
    by_node = isolate(repo, ["--node", "tests/test_core.py::test_mean"], tmp_path / "node.diff")
    assert state(repo) == before
    assert by_test["patch"] == by_node["patch"]
    # the cause is one edited line (2 diff lines); the patch is at most twice that
    isolated = by_test["isolated"]
    assert isinstance(isolated, dict) and isolated["lines"] <= 4, by_test["patch"]
    assert "+    return total // len(values)\n" in str(by_test["patch"])
    assert "--git: main~29 is" in str(by_test["stderr"])
    # applied to GOOD's files with patch -p1, it makes GOOD fail as BAD does
    good = tmp_path / "good"
    good.mkdir()
    archive = subprocess.run(["git", "-C", str(repo), "archive", "main~29"], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(good, filter="data")
    assert subprocess.run([str(check), str(good)], check=False).returncode == 1  # GOOD passes
    applied = subprocess.run(["patch", "-p1", "--batch", "-d", str(good)], input=str(by_test["patch"]), text=True, capture_output=True, check=False)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert subprocess.run([str(check), str(good)], check=False).returncode == 0  # GOOD + patch fails as BAD does
