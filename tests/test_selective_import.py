"""Selective re-import: a warm pytest holds the project's modules, and a test imports again only what changed.

Real pytest, real warm processes: every candidate is judged by a warm
process holding modules and by one importing the whole project (as a plain
run does: ``test_pytest_node.py`` checks those two agree), and they agree,
through a module that registers itself in another at import (the check
that ties them), a data file a module reads while it is imported, and a
package whose ``__init__`` runs again while its submodules are kept.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from astreduce.outcome import Outcome
from astreduce.pytest_node import PytestOracle, read_project
from astreduce.pytest_node.held import WINDOW, Holding, HeldModules
from astreduce.source.imports import held_modules, modules_of

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")

PROJECT = {
    "shapes/__init__.py": "from shapes import registry\nimport shapes.core\nfrom shapes.util import double\nfrom shapes.names import NAMES\n",
    "shapes/names.py": "NAMES = ('square',)\n",
    "shapes/registry.py": "KINDS = []\n",
    "shapes/win.py": "import winreg_not_here\n",
    "shapes/core.py": (
        "from shapes import registry\nfrom shapes.util import double\n\ntry:\n    from shapes.win import WINDOWS\nexcept ImportError:\n    WINDOWS = None\n"
        "registry.KINDS.append('square')\n\nwith open('table.txt') as handle:\n    SIDE = int(handle.read())\n\n\n"
        "def area():\n    return double(SIDE) * len(registry.KINDS)\n"
    ),
    "shapes/util.py": "def double(x):\n    return x * x\n",
    "table.txt": "3\n",
    "tests/test_area.py": (
        "import shapes\nimport shapes.core\nfrom shapes import registry\n\n\n"
        "def test_area():\n    assert shapes.core.area() == 10, registry.KINDS\n"
    ),
}
NODE = "tests/test_area.py::test_area"


def test_what_a_module_holds_once_imported_is_what_its_imports_run_at_import_time_bind() -> None:
    tree = {"a/__init__.py": "", "a/b.py": "", "c.py": "", "d.py": "", "m.py": "import a.b\nfrom c import x\n\ndef f():\n    import d\n"}
    assert held_modules("m.py", tree["m.py"], modules_of(tree)) == {"a", "a.b", "c"}  # d: looked up when f runs


def test_a_candidate_drops_what_changed_and_what_holds_it_and_all_when_a_data_file_changed() -> None:
    modules = [("shapes", "shapes/__init__.py"), ("shapes.registry", "shapes/registry.py"), ("shapes.util", "shapes/util.py"),
               ("shapes.core", "shapes/core.py")]
    holding = Holding.of(PROJECT, modules, {})
    assert holding.dropped(PROJECT) == []
    assert holding.dropped({**PROJECT, "shapes/core.py": "\n"}) == ["shapes", "shapes.core"]
    assert holding.dropped({**PROJECT, "shapes/util.py": "\n"}) == ["shapes", "shapes.util", "shapes.core"]
    assert holding.dropped({**PROJECT, "tests/test_area.py": "\n"}) == []
    assert holding.dropped({**PROJECT, "table.txt": "4\n"}) == [name for name, _ in modules]
    tied = Holding.of(PROJECT, modules, {"shapes/core.py": {"shapes/registry.py"}})
    assert tied.dropped({**PROJECT, "shapes/core.py": "\n"}) == ["shapes", "shapes.registry", "shapes.core"]


def test_the_modules_held_are_held_again_when_the_candidates_agree_on_a_file_that_differs_from_them() -> None:
    held = HeldModules()
    modules = [["shapes", "shapes/__init__.py"], ["shapes.util", "shapes/util.py"]]
    plans = []
    for n in range(WINDOW):
        held.seen(PROJECT, modules, True)
        plans.append(held.plan({**PROJECT, "shapes/util.py": f"# {n}\n"}))
    assert plans[:-1] == [None] * (WINDOW - 1) and plans[-1] == (PROJECT, [tuple(m) for m in modules])
    for n in range(WINDOW):  # a pass over util.py: it differs in every candidate, the rest is as held
        assert held.plan({**PROJECT, "shapes/util.py": f"# again {n}\n"}) is None
    moved = {**PROJECT, "shapes/util.py": "# kept\n"}
    held.seen(moved, modules, True)
    plans = [held.plan({**moved, "shapes/__init__.py": f"# {n}\n"}) for n in range(WINDOW)]
    assert plans[-1] is not None and held.holding is not None and held.holding.texts["shapes/util.py"] == "# kept\n"


def _candidates() -> list[tuple[str, dict[str, str]]]:
    test = PROJECT["tests/test_area.py"]
    found = [(f"test file {n}", {**PROJECT, "tests/test_area.py": test + f"# {n}\n"}) for n in range(WINDOW + 1)]
    return found + [
        ("util changed (the test passes)", {**PROJECT, "shapes/util.py": "def double(x):\n    return x + 7\n"}),
        ("util commented", {**PROJECT, "shapes/util.py": PROJECT["shapes/util.py"] + "# c\n"}),
        ("core changed (it registers again)", {**PROJECT, "shapes/core.py": PROJECT["shapes/core.py"] + "# c\n"}),
        ("core changed again", {**PROJECT, "shapes/core.py": PROJECT["shapes/core.py"] + "# d\n"}),
        ("table changed", {**PROJECT, "table.txt": "5\n"}),
        ("package body changed", {**PROJECT, "shapes/__init__.py": PROJECT["shapes/__init__.py"] + "# e\n"}),
        ("util broken", {**PROJECT, "shapes/util.py": "def double(x:\n"}),
        ("a module that never imported broken", {**PROJECT, "shapes/win.py": "import winreg_not_here(\n"}),
        ("core gone", {p: t for p, t in PROJECT.items() if p != "shapes/core.py"}),
        ("as it was", dict(PROJECT)),
    ]


def test_warm_tests_holding_the_modules_judge_every_candidate_as_a_full_import_does(tmp_path: Path) -> None:
    project = tmp_path / "p"
    for path, text in PROJECT.items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text, encoding="utf-8")
    judged = PytestOracle(read_project(project, NODE), jobs=1, selective=True)
    full = PytestOracle(read_project(project, NODE), jobs=1)  # every test imports the whole project (as plain runs do)
    try:
        tree = dict(judged.project.tree)
        assert set(tree) == set(PROJECT), "the data file is part of the tree"
        judged.calibrate(tree)
        full.calibrate(tree)
        assert judged.warm and full.warm, judged.notes + full.notes
        dropped, outcomes = [], set()
        for label, candidate in _candidates():
            held, whole = judged.judge(candidate), full.judge(candidate)
            assert held.outcome is whole.outcome, (label, held.run.describe(), whole.run.describe())
            assert (held.run.exception, held.run.message) == (whole.run.exception, whole.run.message), label
            zygote = next(z for zs in judged.pool.pools.values() for z in zs)  # type: ignore[union-attr]
            dropped.append((label, zygote.testing[2] if zygote.testing else None))
            outcomes.add(held.outcome)
        assert outcomes == {Outcome.FAIL, Outcome.PASS, Outcome.UNRESOLVED}
        held_by = dict(dropped)
        assert held_by[f"test file {WINDOW}"] == []  # every module of the library held, none imported again
        assert set(held_by["util commented"]) >= {"shapes", "shapes.util", "shapes.core"}
        assert "shapes.names" not in held_by["util commented"]  # held: util is not what it holds
        assert "shapes.registry" in held_by["core changed again"]  # tied to core once its import changed it
        assert any("changed the state of shapes.registry" in note for note in judged.notes), judged.notes
    finally:
        judged.close()
        full.close()


def test_by_default_no_module_is_held(tmp_path: Path) -> None:
    shutil.copytree(Path(__file__).parent / "data" / "pytest_project", tmp_path / "p")
    judged = PytestOracle(read_project(tmp_path / "p", "tests/test_geometry.py::TestPolygonArea::test_square_away_from_the_origin"))
    try:
        assert judged.setup.selective is False  # every zygote it starts imports the whole project in each test
    finally:
        judged.close()
