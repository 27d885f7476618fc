"""Cut what the failure never runs, first (``--coverage-first``): a tree's original runs once with coverage.

The statements' arithmetic is checked directly on texts; then small trees go
through ``python -m astreduce reduce DIR`` as subprocesses, with the exec
oracle (``--entry``) and with a Python ``--test`` script: the file the run
never imports and the code it never executes go in the first passes, a few
tests each; without ``--coverage-first`` (the default) the passes run as before.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

from astreduce.reduce.unexecuted import Executed, idle_statements, measure_executed, needed_statements, stale

ASTREDUCE = [sys.executable, "-m", "astreduce"]
ENV = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}

USED = '''"""The module the failure runs."""


def helper(x):
    if x > 100:
        raise ValueError("large")
    return x + 1


def never_called(a, b):
    total = a
    for item in b:
        total += item
    return total


class Shape:
    def area(self):
        return 0

    def unused_method(self):
        return "nobody"


def crash(n):
    try:
        value = helper(n)
    except ValueError:
        value = 0
        print("recovered")
    raise KeyError(value)
'''

MAIN = '''import pkg.used

pkg.used.Shape().area()
pkg.used.crash(3)
print("never here")
'''

UNUSED = '''"""Nothing imports this module."""
TABLE = {name: len(name) for name in ["alpha", "beta", "gamma"]}


def lookup(name):
    return TABLE[name]
'''


def test_idle_statements_are_cut_and_an_emptied_block_gets_pass() -> None:
    ran = frozenset({1, 4, 5, 7, 10, 17, 18, 19, 21, 25, 26, 27, 31})  # what MAIN's run executes of USED
    idle = idle_statements(USED, ran)
    assert idle is not None
    cut = idle.without(range(len(idle.idle)))
    ast.parse(cut)  # every block left empty got a pass
    assert "never_called" not in cut and "unused_method" not in cut and "def area" in cut
    assert 'raise ValueError("large")' not in cut and "x > 100" in cut  # the branch never taken
    assert 'print("recovered")' not in cut and "except ValueError:\n        pass" in cut
    assert idle.without([]) == USED


def test_one_line_blocks_and_unparsable_texts_are_left_alone() -> None:
    assert idle_statements("if x: y = 1\n", frozenset({1})) is None
    assert idle_statements("def f(:\n", frozenset()) is None
    assert idle_statements("x = 1\n", frozenset({1})) is None


NEEDING = {
    "pkg/__init__.py": "",
    "pkg/a.py": """from __future__ import annotations
import os
import typing as ty
from pkg.b import used_b, unused_b

X = 1
Y = 2


def f(p: ty.Any) -> ty.Any:
    return X + used_b()


def g():
    return Y


class Shape:
    def area(self):
        return 1

    def unused(self):
        return 2

    def __repr__(self):
        return "s"


f(1)
repr(Shape().area())
""",
    "pkg/b.py": "def used_b():\n    return 1\n\n\ndef unused_b():\n    return 2\n\n\ndef never():\n    return 3\n",
    "main.py": "import pkg.a\n",
}


def test_the_statements_whose_names_a_run_reads_are_needed(tmp_path: Path) -> None:
    """What the sweeps leave alone: a statement whose name an executed line reads (not one read only in an annotation
    the module postpones, nor one read only in code that never ran), or that an executed import asks for by name."""

    def run(tree: dict[str, str], folder: str) -> None:
        root = tmp_path / "run"
        for path, text in tree.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text, encoding="utf-8")
        subprocess.run([sys.executable, "main.py"], cwd=root, env={**ENV, "PYTHONPATH": str(root)}, check=True, timeout=60)

    executed = measure_executed(run, NEEDING)
    assert executed.known
    needed = needed_statements(NEEDING, executed)
    assert needed["pkg/a.py"] == {
        "FunctionDef f", "X = 1", "from pkg.b import used_b, unused_b", "ClassDef Shape",
        "ClassDef Shape: FunctionDef area",  # ran, and no other class has one (a dunder, or one that never ran, is not)
    }
    assert needed["pkg/b.py"] == {"FunctionDef used_b", "FunctionDef unused_b"}  # both named by the executed import
    assert "main.py" not in needed  # nothing reads what main binds


def test_a_sweep_proposes_none_of_the_needed_statements_at_module_level() -> None:
    from astreduce.reduce.sweeps import StatementDeletion
    from astreduce.source.tree import parse
    from astreduce.transforms import load_transforms

    text = NEEDING["pkg/a.py"]
    tree = parse(text)
    delete = load_transforms(["delete"])[0]

    def proposed(needed: frozenset[str]) -> set[str]:
        found = set()
        for opportunity in StatementDeletion(delete, None, needed).opportunities(tree):
            node = tree.nodes[opportunity.target]
            found.add(text[node.start:node.end].split("\n")[0])
        return found

    everything = proposed(frozenset())
    narrowed = proposed(frozenset({"FunctionDef f", "X = 1", "from pkg.b import used_b, unused_b", "ClassDef Shape: FunctionDef area"}))
    assert everything - narrowed == {"def f(p: ty.Any) -> ty.Any:", "X = 1", "from pkg.b import used_b, unused_b", "def area(self):"}
    assert {"class Shape:", "def unused(self):", "def __repr__(self):"} <= narrowed
    assert "return X + used_b()" in narrowed and "import os" in narrowed  # a nested statement is still proposed


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "used.py").write_text(USED, encoding="utf-8")
    (root / "pkg" / "unused.py").write_text(UNUSED, encoding="utf-8")
    (root / "main.py").write_text(MAIN, encoding="utf-8")
    return root


def _reduce(tmp_path: Path, *args: str, budget: tuple[str, ...] = ("--max-tests", "20")) -> tuple[dict, Path]:
    out, report = tmp_path / "out", tmp_path / "report.json"
    tree = tmp_path / "project" if (tmp_path / "project").is_dir() else _tree(tmp_path)
    done = subprocess.run(
        [*ASTREDUCE, "reduce", str(tree), *args, "-o", str(out), "--report", str(report), "-q", "-j", "2", "--no-format", *budget],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, env=ENV,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(report.read_text(encoding="utf-8")), out


def _first_passes(report: dict) -> dict[str, dict]:
    """The passes over what never ran, by name: the first of each name (coverage measured again makes more)."""
    found: dict[str, dict] = {}
    for p in report["passes"]:
        if p["name"].startswith("unexecuted"):
            found.setdefault(p["name"], p)
    return found


def test_the_entry_s_unexecuted_files_and_code_go_first(tmp_path: Path) -> None:
    report, out = _reduce(tmp_path, "--entry", "main.py", "--coverage-first")
    first = _first_passes(report)
    assert report["passes"][0]["name"] == "unexecuted files (1)"
    assert first["unexecuted files (1)"]["tokens_after"] < first["unexecuted files (1)"]["tokens_before"]
    used = next(p for name, p in first.items() if name.startswith("unexecuted: pkg/used.py"))
    assert used["tokens_after"] < used["tokens_before"] and used["tests"] <= 6
    assert not (out / "pkg" / "unused.py").exists()
    assert "KeyError" in report["target"]


def test_without_the_option_the_order_is_as_before(tmp_path: Path) -> None:
    report, _ = _reduce(tmp_path, "--entry", "main.py", budget=("--max-tests", "3"))
    assert not _first_passes(report) and report["tests"] > 0


def test_a_python_test_script_is_measured_too(tmp_path: Path) -> None:
    script = tmp_path / "check.py"
    script.write_text(
        "import subprocess, sys\n"
        "done = subprocess.run([sys.executable, 'main.py'], cwd=sys.argv[1], capture_output=True, text=True)\n"
        "sys.exit(0 if 'KeyError' in done.stderr else 1)\n",
        encoding="utf-8",
    )
    report, _ = _reduce(tmp_path, "--test", str(script), "--coverage-first")
    assert "unexecuted files (1)" in _first_passes(report)


READER = '''import os

HERE = os.path.dirname(os.path.abspath(__file__))


def metric(name):
    return name


def imperial(name):
    factor = {"inch": 25.4, "foot": 304.8}
    return factor.get(name, name)


def nautical(name):
    return "nautical " + name


def load():
    units = {}
    with open(os.path.join(HERE, "table.txt")) as table:
        for line in table:
            kind, name = line.split()
            if kind == "imperial":
                units[name] = imperial(name)
            elif kind == "nautical":
                units[name] = nautical(name)
            else:
                units[name] = metric(name)
    return units


units = load()
if "meter" in units:
    raise LookupError("meter is defined twice")
'''


def _reader_tree(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "main.py").write_text(READER, encoding="utf-8")
    rows = [f"{'imperial' if n % 3 else 'nautical'} unit{n}" for n in range(40)]
    (root / "table.txt").write_text("\n".join([*rows[:20], "metric meter", *rows[20:]]) + "\n", encoding="utf-8")
    (root / "notes.txt").write_text("Nothing reads these notes.\n" * 5, encoding="utf-8")
    return root


def test_the_data_a_run_reads_is_kept_what_it_never_reads_goes_first_and_coverage_is_measured_again(tmp_path: Path) -> None:
    _reader_tree(tmp_path)
    report, out = _reduce(tmp_path, "--entry", "main.py", "--coverage-first", budget=())
    names = [p["name"] for p in report["passes"]]
    assert names[0] == "unexecuted files (1)"  # notes.txt: never opened; table.txt was read
    assert not (out / "notes.txt").exists()
    # read, so reduced, and first: every test of the original reads the whole table
    assert names[1] == "table.txt: lines"
    table = report["passes"][1]
    assert table["tokens_after"] < table["tokens_before"]
    # the table lost more than half: measured again, and the readers of the rows that went never run now;
    # main.py's statements are cut on what the smaller table runs, not before
    assert names[2] == "coverage measured again"
    again = 2
    assert not any(name.startswith("unexecuted: main.py") for name in names[:again])
    cut = report["passes"][again + 1]
    assert cut["name"].startswith("unexecuted: main.py")
    assert cut["tokens_after"] < cut["tokens_before"]
    assert "def nautical" not in (out / "main.py").read_text(encoding="utf-8")


def test_coverage_is_stale_once_the_tree_has_lost_a_fifth_or_a_table_it_reads_half() -> None:
    measured = {"a.py": "x" * 50, "b.py": "y" * 30, "table.txt": "z" * 20}
    executed = Executed({"a.py": frozenset({1}), "b.py": frozenset({1}), "table.txt": frozenset({1})})
    assert not stale(executed, measured, measured, len)
    assert not stale(executed, measured, {**measured, "a.py": "x" * 35}, len)  # 15% less
    assert stale(executed, measured, {**measured, "a.py": "x" * 30}, len)  # a fifth less
    assert stale(executed, measured, {**measured, "table.txt": "z" * 10}, len)  # the table read lost half
    assert not stale(Executed(None), measured, {"a.py": ""}, len)  # nothing measured: nothing to measure again
