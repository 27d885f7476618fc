"""``astreduce pytest`` as a newcomer tries it (issue 47): from a parent folder, with a project environment
that lacks pytest, with reports left in the project, and the README's recipe as written (in a fresh clone and venv). Real
subprocesses on a copy of ``tests/data/pytest_project``, with a small ``--max-tests``."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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


@pytest.mark.slow  # 27 s: a whole reduction; test_pytest_node's end-to-end one keeps the command in the suite
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
    # the next run, with its output under another name: the first run's output folder is no project file either
    done = astreduce("pytest", NODE, "-o", "other", "--report", "r2.json", "--max-tests", "1", "-j", "1", cwd=project)
    assert done.returncode == 0, done.stderr
    assert re.search(r"\b4 in the project\b", done.stderr.splitlines()[0]), done.stderr
    files = json.loads((project / "r2.json").read_text())["files"]
    assert not any("out/" in name for name in json.dumps(files).split('"')), files


def readme_pytest_recipe() -> tuple[str, list[str], str]:
    """The README's pytest recipe: the extra its install names, the folder it goes to, and its command."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(r"### A failing pytest test.*?```sh\n(.*?)```(.*?)\n##", readme, re.DOTALL)
    assert section is not None
    cd, command = section.group(1).strip().splitlines()
    install = re.search(r"`pip install '(\.\[pytest\])'`\s+here", section.group(2))
    assert install is not None, "the recipe says how to install pytest beside astreduce in a clone"
    words = shlex.split(cd)
    assert words[0] == "cd" and len(words) == 2
    return install.group(1), words[1:], command


@pytest.mark.slow  # 70 s (a fresh clone, a venv, pip install): CI installs as the README says; the recipe's reduction is test_pytest_node's
@pytest.mark.skipif(not (ROOT / ".git").exists() or shutil.which("git") is None, reason="a fresh clone needs git and the repository")
def test_the_readme_pytest_recipe_runs_as_written_in_a_fresh_clone_and_venv(tmp_path: Path) -> None:
    """The README's install and pytest recipe, word for word, in a fresh clone (of the committed tree) with a
    fresh virtual environment: exit 0, and the reduced project fails as the original does."""
    extra, (folder,), command = readme_pytest_recipe()
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True, timeout=120)
    subprocess.run([sys.executable, "-m", "venv", str(clone / ".venv")], check=True, timeout=120)
    installed = subprocess.run(
        [str(clone / ".venv" / "bin" / "pip"), "install", "-q", extra], cwd=clone, capture_output=True, text=True, timeout=600, check=False
    )
    assert installed.returncode == 0, installed.stderr
    env = {**os.environ, "PATH": f"{clone / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}", "VIRTUAL_ENV": str(clone / ".venv")}
    env.pop("PYTHONPATH", None)
    done = subprocess.run(["bash", "-c", command], cwd=clone / folder, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    assert "(astreduce's own)" in done.stderr.splitlines()[0], done.stderr
    project = clone / folder
    reduced = project / "reduced"
    assert (reduced / "tests" / "test_geometry.py").is_file()
    python = str(clone / ".venv" / "bin" / "python")
    original, after = (
        subprocess.run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider", NODE], cwd=where, capture_output=True, text=True, timeout=120, check=False)
        for where in (project, reduced)
    )
    assert original.returncode == after.returncode == 1
    assert "assert 5.0 == 4" in original.stdout and "assert 5.0 == 4" in after.stdout
