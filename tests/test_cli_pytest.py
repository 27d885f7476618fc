"""``astreduce pytest`` as a newcomer tries it (issue 47): from a parent folder, with a project environment
that lacks pytest, with reports left in the project, and the README's recipe as written. Real subprocesses
on a copy of ``tests/data/pytest_project``, with a small ``--max-tests``."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ROOT / "tests" / "data" / "pytest_project"
NODE = "tests/test_geometry.py::TestPolygonArea::test_square_away_from_the_origin"
ASTREDUCE = [sys.executable, "-m", "astreduce"]


def astreduce(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ASTREDUCE, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=300, check=False)


def copy(tmp_path: Path) -> Path:
    project = tmp_path / "parent" / "proj"
    shutil.copytree(PROJECT, project)
    return project


def test_run_from_a_parent_folder_the_root_is_found_from_the_node(tmp_path: Path) -> None:
    project = copy(tmp_path)
    done = astreduce("pytest", f"proj/{NODE}", "-o", "out", "--max-tests", "3", "-j", "1", cwd=project.parent)
    assert done.returncode == 0, done.stderr
    first = done.stderr.splitlines()[0]
    assert f"project {project} (its pytest.ini)" in first, first
    assert (project.parent / "out" / "tests" / "test_geometry.py").is_file()


def test_a_project_environment_without_pytest_gives_way_to_astreduce_s_own(tmp_path: Path) -> None:
    project = copy(tmp_path)
    python = project / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(f'#!/bin/sh\n[ "$2" = "import pytest" ] && exit 1\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    (project / ".venv" / "pyvenv.cfg").write_text("home = /nowhere\n")
    done = astreduce("pytest", NODE, "-o", str(tmp_path / "out"), "--max-tests", "3", "-j", "1", cwd=project)
    assert done.returncode == 0, done.stderr
    first = done.stderr.splitlines()[0]
    assert f"pytest under {sys.executable} (astreduce's own; the project's .venv has no pytest)" in first, first


def test_reports_astreduce_wrote_are_never_project_files(tmp_path: Path) -> None:
    project = copy(tmp_path)
    (project / "old-report.json").write_text(json.dumps({"astreduce_version": "0", "tests": 1}))
    done = astreduce(
        "pytest", NODE, "-o", "out", "--report", "r.json", "--max-tests", "3", "-j", "1", cwd=project,
    )
    assert done.returncode == 0, done.stderr
    assert re.search(r"\b4 in the project\b", done.stderr.splitlines()[0]), done.stderr  # pytest.ini and three .py
    report = json.loads((project / "r.json").read_text())
    assert "old-report.json" not in json.dumps(report["files"]) and "r.json" not in report.get("deleted", [])


def test_the_readme_pytest_recipe_runs_as_written(tmp_path: Path) -> None:
    """The README's commands, in a copy of the project; a budget (--max-tests) keeps the test short."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"### A failing pytest test.*?```sh\n(.*?)```", readme, re.DOTALL)
    assert block is not None
    cd, command = block.group(1).strip().splitlines()
    assert shlex.split(cd) == ["cd", "tests/data/pytest_project"]
    words = shlex.split(command)
    assert words[0] == "astreduce"
    project = copy(tmp_path)
    done = astreduce(*words[1:], "--max-tests", "5", cwd=project)
    assert done.returncode == 0, done.stderr
    assert (project / "reduced" / "tests" / "test_geometry.py").is_file()
