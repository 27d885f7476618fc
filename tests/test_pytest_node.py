"""``astreduce pytest NODEID``: a failing test reduced under pytest itself.

``tests/data/pytest_project`` is a small package (``shapes``) with ten
tests, one of them failing through a bug in ``polygon_area``. Every check
here runs pytest for real: the oracle's forked children, and a plain
``python -m pytest`` subprocess on the reduced files.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from astreduce.measure import measure
from astreduce.oracles.signature import neutral
from astreduce.outcome import Outcome
from astreduce.pytest_node import PytestOracle, split_nodeid, without_other_tests

PROJECT = Path(__file__).resolve().parent / "data" / "pytest_project"
NODE = "tests/test_geometry.py::TestPolygonArea::test_square_away_from_the_origin"
ASTREDUCE = [sys.executable, "-m", "astreduce"]


#: A wide terminal, so that pytest's short summary keeps the failure's message.
WIDE = {**os.environ, "COLUMNS": "500"}


def run_pytest(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider", "--color=no", "-rf", *args],
        cwd=folder, capture_output=True, text=True, timeout=300, env=WIDE, check=False,
    )


def failure_line(done: subprocess.CompletedProcess[str]) -> str:
    """pytest's short summary line for the failing node: ``FAILED node - Type: message``."""
    return next(line for line in done.stdout.splitlines() if line.startswith("FAILED "))


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    copy = tmp_path / "project"
    shutil.copytree(PROJECT, copy)
    return copy


def test_the_node_fails_in_the_shipped_project_and_the_others_pass() -> None:
    done = run_pytest(PROJECT)
    assert done.returncode == 1
    assert "1 failed, 9 passed" in done.stdout
    assert failure_line(done).startswith(f"FAILED {NODE} - assert 5.0 == 4")


@pytest.mark.parametrize(
    ("test", "kept", "gone"),
    [
        ("TestPolygonArea::test_square_away_from_the_origin", ["class TestPolygonArea", "def test_square_away"], ["def test_rectangle_area", "def test_triangle", "def test_empty", "def test_perimeter", "@pytest.mark"]),
        ("test_perimeter[points0-8.0]", ["def test_perimeter", "@pytest.mark.parametrize"], ["class TestPolygonArea", "def test_circle"]),
    ],
)
def test_other_tests_go_first(test: str, kept: list[str], gone: list[str]) -> None:
    text = (PROJECT / "tests" / "test_geometry.py").read_text(encoding="utf-8")
    alone = without_other_tests(text, test)
    assert alone is not None
    for needle in kept:
        assert needle in alone
    for needle in gone:
        assert needle not in alone
    assert "def unit_square" in alone and "SQUARE = " in alone  # fixtures and helpers stay
    compile(alone, "test_geometry.py", "exec")


def test_node_ids_are_checked() -> None:
    assert split_nodeid("tests/test_x.py::TestA::test_b[1-2]") == ("tests/test_x.py", "TestA::test_b[1-2]")
    for bad in ("tests/test_x.py", "test_b", "tests/test_x.txt::test_b", "tests/test_x.py::"):
        with pytest.raises(Exception, match="is not a test's node id"):
            split_nodeid(bad)


def test_the_oracle_judges_by_node_type_and_message(project: Path) -> None:
    files = {p: (project / p).read_text(encoding="utf-8") for p in ("tests/test_geometry.py", "shapes/geometry.py")}
    oracle = PytestOracle(project, NODE, sys.executable)
    try:
        first = oracle.calibrate(files)
        assert first.outcome is Outcome.FAIL and oracle.target is not None
        assert oracle.target.nodeid == NODE and oracle.target.when == "call"
        assert oracle.target.exception == "AssertionError" and oracle.target.message.startswith("assert 5.0 == 4")
        fixed = files["shapes/geometry.py"].replace("range(len(points) - 1)", "range(len(points))").replace(
            "points[i + 1]", "points[(i + 1) % len(points)]"
        )
        assert oracle.judge({**files, "shapes/geometry.py": fixed}).outcome is Outcome.PASS
        other = files["shapes/geometry.py"].replace("return abs(total) / 2", "return abs(total) / 3")  # 10/3, not 5.0
        assert oracle.judge({**files, "shapes/geometry.py": other}).outcome is Outcome.UNRESOLVED
        broken = files["tests/test_geometry.py"].replace("import math", "import math_that_is_not_there")
        assert oracle.judge({**files, "tests/test_geometry.py": broken}).outcome is Outcome.UNRESOLVED
    finally:
        oracle.close()
    assert not oracle.template.exists()
    assert neutral("at 0x7f00aa in /tmp/x", numbers=False) == "at <address> in <tmp>"


def test_a_passing_node_is_exit_1_and_a_bad_node_id_exit_2(project: Path, tmp_path: Path) -> None:
    done = subprocess.run(
        [*ASTREDUCE, "pytest", "tests/test_geometry.py::test_distance", "-o", str(tmp_path / "out")],
        cwd=project, capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.strip().splitlines() == [
        "astreduce: tests/test_geometry.py::test_distance does not fail: it passes under pytest"
    ]
    done = subprocess.run(
        [*ASTREDUCE, "pytest", "tests/test_nowhere.py::test_x", "-o", str(tmp_path / "out2")],
        cwd=project, capture_output=True, text=True, timeout=60, check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == "astreduce: tests/test_nowhere.py: cannot read: No such file"


@pytest.mark.slow  # a few minutes: every test is a pytest run
def test_the_reduced_node_fails_the_same_way_in_a_fraction_of_the_tokens(project: Path, tmp_path: Path) -> None:
    before = {p.relative_to(project).as_posix(): p.read_bytes() for p in project.rglob("*.py")}
    original = failure_line(run_pytest(project, NODE))
    out = tmp_path / "out"
    done = subprocess.run(
        [*ASTREDUCE, "pytest", NODE, "--reduce", "shapes/geometry.py", "-o", str(out), "--report", str(tmp_path / "r.json"), "-j", "2"],
        cwd=project, capture_output=True, text=True, timeout=1800, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert {p.relative_to(project).as_posix(): p.read_bytes() for p in project.rglob("*.py")} == before
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["verified"] and report["other_tests_removed_at_once"]
    tokens_before, tokens_after = report["tokens"]
    assert tokens_after <= tokens_before * 0.4, report
    # the reduced files, in place of the originals, fail the same way under a plain pytest run
    for path in ("tests/test_geometry.py", "shapes/geometry.py"):
        assert measure((out / path).read_text()).tokens < measure(before[path].decode()).tokens
        shutil.copy(out / path, project / path)
    again = run_pytest(project, NODE)
    assert again.returncode == 1
    assert failure_line(again) == original
    assert "polygon_area" in (out / "shapes" / "geometry.py").read_text()
