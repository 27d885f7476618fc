"""Extending astreduce as docs/ARCHITECTURE.md's recipes say: a toy oracle and a toy transform.

Both live in a package of their own, installed the way a user installs one
(a distribution with entry points on the path), and the test counts what they
had to touch: the oracle registers an :class:`OracleKind` and one CLI option
group, the transform subclasses :class:`Transform` and adds one row to the
schedule. Nothing else in astreduce knows their names.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TOY = '''
"""A toy oracle (--needle NAME: interesting iff the candidate parses and binds NAME) and a toy transform
(fold: any arithmetic is 42)."""
import ast

import click

import re

from astreduce.errors import NotReproducibleError
from astreduce.interpreters import resolve_python
from astreduce.oracles.command import CommandOracle, Criteria
from astreduce.oracles.options import OracleKind, Original
from astreduce.oracles.predicate import PredicateOracle
from astreduce.outcome import Outcome
from astreduce.search.schedule import SCHEDULE, Row
from astreduce.source.render import Replacement
from astreduce.transforms import Transform


def binds(text, name):
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return False
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(tree))


def calibrate(options, original: Original):
    needle = options.extra["needle"]
    oracle = PredicateOracle(lambda text: binds(text, needle), limits=options.limits())
    verdict = oracle.calibrate(original.text, timeout=options.timeout)
    if verdict.outcome is not Outcome.FAIL:
        oracle.close()
        raise NotReproducibleError(f"{original.filename} does not bind {needle}")
    return oracle, verdict


class Needle:
    kind = OracleKind(
        "needle", "--needle", lambda options: bool(options.extra.get("needle")), calibrate,
        lambda options: f"the toy oracle (binds {options.extra['needle']})", strict=True,
    )
    options = [click.option("--needle", metavar="NAME", help="Toy oracle: interesting iff the candidate binds NAME.")]


def prints_command(options, python, filename, encode):
    """The program, run: interesting when its standard output holds the text."""
    return CommandOracle(
        ["{python} {file}"], filename=filename, criteria=Criteria(stdout=re.escape(options.extra["prints"])),
        python=python, encode=encode, limits=options.limits(),
    )


def calibrate_prints(options, original: Original):
    oracle = options.command_oracle(resolve_python(options.python), filename=original.filename, encode=original.encode)
    return oracle, oracle.calibrate(original.text, timeout=options.timeout)


class Prints:
    """A second toy kind, "the program prints X": one module and one option group, for files and trees."""

    kind = OracleKind(
        "prints", "--prints", lambda options: bool(options.extra.get("prints")), calibrate_prints,
        lambda options: f"the toy oracle (prints {options.extra['prints']!r})", command=prints_command,
        judgement=lambda options, target: f"prints {options.extra['prints']!r}",
        empty_note=lambda options: "the text is printed without the program",
    )
    options = [click.option("--prints", metavar="TEXT", help="Toy oracle: interesting iff the program prints TEXT.")]


class Fold(Transform):
    """Replace arithmetic by 42."""

    name = "fold"
    node_kinds = frozenset({"BinOp"})

    def replacements(self, node, tree):
        yield Replacement.text("42")


SCHEDULE["fold"] = Row(phase="simplify")
'''

ENTRY_POINTS = """\
[astreduce.oracles]
needle = toyplugin:Needle
prints = toyplugin:Prints

[astreduce.transforms]
fold = toyplugin:Fold
"""


@pytest.fixture
def plugin_path(tmp_path: Path) -> Path:
    """A folder holding the toy package and its distribution's metadata, as pip would install them."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "toyplugin.py").write_text(TOY)
    meta = site / "toyplugin-0.1.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: toyplugin\nVersion: 0.1\n")
    (meta / "entry_points.txt").write_text(ENTRY_POINTS)
    return site


def run(tmp_path: Path, site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-m", "astreduce", *args], cwd=tmp_path, env=env, capture_output=True, text=True,
        timeout=300, check=False,
    )


def test_a_toy_oracle_and_a_toy_transform_need_no_edit_of_astreduce(tmp_path: Path, plugin_path: Path) -> None:
    (tmp_path / "prog.py").write_text(textwrap.dedent("""\
        import os
        scale = 3
        needle = (scale + 4) * 5 - len(os.sep)
        print(needle)
        """))
    done = run(tmp_path, plugin_path, "reduce", "prog.py", "--needle", "needle", "-o", "out.py", "--no-format")
    assert done.returncode == 0, done.stderr
    assert "the toy oracle (binds needle)" in done.stderr
    (statement,) = ast.parse((tmp_path / "out.py").read_text()).body
    assert isinstance(statement, ast.Assign) and ast.unparse(statement.targets[0]) == "needle"
    assert ast.unparse(statement.value) in ("0", "42")


def test_the_toy_transform_alone_is_what_folds(tmp_path: Path, plugin_path: Path) -> None:
    (tmp_path / "prog.py").write_text("needle = (3 + 4) * 5\n")
    folded = run(tmp_path, plugin_path, "reduce", "prog.py", "--needle", "needle", "--transforms", "fold", "-o", "a.py")
    without = run(tmp_path, plugin_path, "reduce", "prog.py", "--needle", "needle", "--transforms", "-fold", "-o", "b.py")
    assert folded.returncode == 0 and without.returncode == 0, folded.stderr + without.stderr
    assert (tmp_path / "a.py").read_text().strip() == "needle = 42"
    assert "42" not in (tmp_path / "b.py").read_text()


def test_the_toy_oracle_options_are_listed_and_checked(tmp_path: Path, plugin_path: Path) -> None:
    helped = run(tmp_path, plugin_path, "reduce", "--help")
    oracle_section = helped.stdout.split("Oracle:")[1].split("Search:")[0]
    assert "--needle" in oracle_section
    (tmp_path / "prog.py").write_text("haystack = 1\n")
    missing = run(tmp_path, plugin_path, "reduce", "prog.py", "--needle", "needle")
    assert missing.returncode == 1 and missing.stderr.strip() == "astreduce: prog.py does not bind needle"
    both = run(tmp_path, plugin_path, "reduce", "prog.py", "--needle", "needle", "--run", "python3 {file}")
    assert both.returncode == 2 and "cannot be combined" in both.stderr
    listed = run(tmp_path, plugin_path, "transforms")
    assert "fold" in listed.stdout


def test_a_broken_oracle_plugin_is_one_warning_line(tmp_path: Path, plugin_path: Path) -> None:
    (plugin_path / "toyplugin.py").write_text("raise ImportError('no such thing')\n")
    (plugin_path / "toyplugin-0.1.dist-info" / "entry_points.txt").write_text("[astreduce.oracles]\nneedle = toyplugin:Needle\n")
    (tmp_path / "prog.py").write_text("raise ValueError('x')\n")
    done = run(tmp_path, plugin_path, "reduce", "prog.py", "-o", "out.py", "-q")
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if "needle" in line]
    assert warnings == ["astreduce: warning: oracle 'needle' (toyplugin:Needle) failed to load: no such thing"]


def test_a_toy_kind_that_runs_a_command_reduces_files_and_trees(tmp_path: Path, plugin_path: Path) -> None:
    """The oracle "the program prints X" is one OracleKind (its command oracle, description, note) and one
    option group, in the plugin's module: it reduces a file, and a tree through its entry."""
    (tmp_path / "prog.py").write_text("import os\nname = 'world'\nprint(len(os.sep))\nprint('hello', name)\n")
    done = run(tmp_path, plugin_path, "reduce", "prog.py", "--prints", "hello world", "-o", "out.py", "--no-format")
    assert done.returncode == 0, done.stderr
    assert "the toy oracle (prints 'hello world')" in done.stderr
    assert "os" not in (tmp_path / "out.py").read_text()
    tree = tmp_path / "app"
    tree.mkdir()
    (tree / "main.py").write_text("import greet\nprint(greet.greeting('world'))\n")
    (tree / "greet.py").write_text("import os\n\ndef greeting(name):\n    return 'hello ' + name\n\nPATH = os.sep\n")
    (tree / "unused.py").write_text("VALUE = 1\n")
    done = run(tmp_path, plugin_path, "reduce", "app", "--entry", "main.py", "--prints", "hello world", "-o", "app.out")
    assert done.returncode == 0, done.stderr
    assert not (tmp_path / "app.out" / "unused.py").exists()


def test_a_toy_strategy_is_one_record() -> None:
    """A strategy is a record in STRATEGIES: its name, whether it works on trees, its runner; nothing else."""
    from astreduce.reduce.single import reduce_source
    from astreduce.search.strategies import STRATEGIES, Strategy
    from astreduce.search.unit_passes import lines_of, unit_pass
    from astreduce.search.greedy import apply_greedily

    def first_lines(session, plan):  # delete lines greedily, from the first
        unit_pass(session, "first lines", lines_of(session.best), apply_greedily)

    STRATEGIES["first-lines"] = Strategy("first-lines", first_lines, False, "lines, greedily")
    try:
        result = reduce_source("a = 1\nb = 2\nraise ValueError('x')\n", strategy="first-lines", format=False)
        assert result.text.strip() == "raise ValueError('x')" and result.strategy == "first-lines"
    finally:
        del STRATEGIES["first-lines"]


def test_a_transform_without_a_schedule_row_is_a_load_error_naming_it(tmp_path: Path, plugin_path: Path) -> None:
    toy = plugin_path / "toyplugin.py"
    toy.write_text(toy.read_text().replace('SCHEDULE["fold"] = Row(phase="simplify")', ""))
    (tmp_path / "prog.py").write_text("needle = (3 + 4) * 5\n")
    done = run(tmp_path, plugin_path, "reduce", "prog.py", "--needle", "needle", "-o", "out.py")
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "astreduce: transform 'fold' has no row in the schedule: add one "
        "(astreduce.search.schedule.SCHEDULE['fold'] = Row(...))"
    ]
    assert not (tmp_path / "out.py").exists()  # before any test
