"""The result is still the bug: the same place, every line's origin, a report a maintainer can use.

* origins are followed through the edits a reduction makes (deletions, in-place edits, hoisting,
  inlining, merging modules, black's layout) and name the original's file, line and function;
* a failure that the same exception and message can also come from elsewhere (a helper's own
  ``1 / 0``) stays in the buggy function by default, and ``--anywhere`` lifts that;
* a tool oracle that rejects unparsable files (exit status only) never ends in a syntax error;
* ``--annotate`` and ``--bug-report`` say where each line came from, and the bug report's command,
  run as written, shows the failure.
"""

from __future__ import annotations

import json
import random
import re
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from astreduce.source.origins import Lineage, Origin, Traced, follow, functions, text_lines, logical_lines

HERE = Path(__file__).resolve().parent
CORPORA = HERE.parent / "corpora"
ASTREDUCE = [sys.executable, "-m", "astreduce"]

#: The literature's mean-of-an-empty-list bug, next to a helper that raises the same exception and catches it.
MEAN = """\
def helper(values):
    try:
        return 1 / 0
    except ZeroDivisionError:
        return None


def mean(values):
    total = 0
    for value in values:
        total += value
    return total / len(values)


def report(groups):
    lines = []
    for name, values in groups.items():
        helper(values)
        lines.append(f"{name}: {mean(values):.2f}")
    return "\\n".join(lines)


print(report({"a": [1, 2, 3], "b": [4, 5], "c": []}))
"""


def astreduce(*args: str | Path, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ASTREDUCE, *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=timeout)


# --- origins ----------------------------------------------------------------------------


def test_functions_name_each_line_as_qualname_does() -> None:
    text = textwrap.dedent(
        """\
        import os

        class Parser:
            @staticmethod
            def parse(text):
                def inner():
                    return 1
                return inner()

        def main():
            pass
        """
    )
    named = functions(text)
    assert named[0] is None and named[2] == "Parser"
    assert named[3] == named[4] == "Parser.parse"  # the decorator belongs to the method
    assert named[6] == "Parser.parse.<locals>.inner"
    assert named[7] == "Parser.parse"
    assert named[9] == "main"


def test_a_line_edited_in_place_keeps_its_origin_and_new_text_has_none() -> None:
    original = "def f(a, b):\n    x = a + b\n    y = x * 2\n    return y\n"
    lineage = Lineage({"m.py": original})
    edited = "def f(a, b):\n    x = a + 0\n    pass\n    return y\n"
    traced = lineage.trace({"m.py": edited})["m.py"]
    assert traced.origins[:4] == (Origin("m.py", 1), Origin("m.py", 2), None, Origin("m.py", 4))


def test_a_hoisted_block_and_an_inlined_body_keep_their_origins() -> None:
    original = textwrap.dedent(
        """\
        def area(w, h):
            product = w * h
            return product / 0

        if True:
            print(area(2, 3))
        """
    )
    lineage = Lineage({"geo.py": original})
    hoisted = original.replace("if True:\n    print", "print")
    lineage.advance({"geo.py": hoisted})
    inlined = "product = 2 * 3\nprint(product / 0)\n"
    traced = lineage.trace({"geo.py": inlined})["geo.py"]
    assert traced.origins[0] == Origin("geo.py", 2)
    assert traced.origins[1] in (Origin("geo.py", 3), Origin("geo.py", 6))
    assert lineage.function(Origin("geo.py", 2)) == "area"


def test_a_merged_module_keeps_its_file_and_lines() -> None:
    tree = {
        "main.py": "import helpers\nprint(helpers.scale(3))\n",
        "helpers.py": "def scale(x):\n    factor = len([])\n    return x / factor\n",
    }
    lineage = Lineage(tree)
    merged = {"main.py": "def scale(x):\n    factor = len([])\n    return x / factor\nprint(scale(3))\n"}
    traced = lineage.trace(merged)["main.py"]
    assert traced.origins[:3] == (Origin("helpers.py", 1), Origin("helpers.py", 2), Origin("helpers.py", 3))
    assert traced.origins[3] == Origin("main.py", 2)


def test_blacks_layout_keeps_origins() -> None:
    original = "def f(a,b):\n  return g(a,\n           b)\n"
    lineage = Lineage({"m.py": original})
    formatted = "def f(a, b):\n    return g(a, b)\n"
    traced = lineage.trace({"m.py": formatted})["m.py"]
    assert traced.origins[:2] == (Origin("m.py", 1), Origin("m.py", 2))


def test_logical_lines_span_brackets_strings_and_continuations() -> None:
    text = 'x = (1,\n     2)\ny = """a\nb"""\nz = 1 + \\\n    2\n'
    assert logical_lines(text)[:6] == [(1, 2), (1, 2), (3, 4), (3, 4), (5, 6), (5, 6)]


def _stdlib_text() -> str:
    import textwrap as module

    return Path(module.__file__).read_text(encoding="utf-8")


@settings(max_examples=40, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(min_value=1, max_value=12))
def test_lines_that_survive_deletions_keep_their_exact_origin(rng: random.Random, steps: int) -> None:
    """Delete random runs of lines, step after step, following each: every line left whose text is unique in the
    original names exactly the line it was (a deletion never makes a line come from elsewhere)."""
    original = _stdlib_text()
    lines = text_lines(original)
    alive = list(range(len(lines)))
    traced = Traced.original("textwrap.py", original)
    for _ in range(steps):
        if len(alive) < 10:
            break
        start = rng.randrange(len(alive))
        del alive[start : start + rng.randint(1, 40)]
        traced = follow(traced, "\n".join(lines[i] for i in alive))
    counts: dict[str, int] = {}
    for line in lines:
        counts[line.strip()] = counts.get(line.strip(), 0) + 1
    for index, origin in zip(alive, traced.origins):
        if lines[index].strip() and counts[lines[index].strip()] == 1:
            assert origin == Origin("textwrap.py", index + 1), (lines[index], origin)


# --- the same place ---------------------------------------------------------------------


def test_the_failure_stays_in_the_buggy_function_not_the_helper(tmp_path: Path) -> None:
    (tmp_path / "stats.py").write_text(MEAN, encoding="utf-8")
    done = astreduce("reduce", "stats.py", "-o", "out.py", "--report", "r.json", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    raised = report["failure"]["raised_at"]
    assert report["failure"]["original"] == {"file": "stats.py", "line": 12, "function": "mean", "appended": False}
    assert raised["function"] == "mean" and raised["origin_file"] == "stats.py", report["failure"]
    assert report["failure"]["same_place"] is True
    run = subprocess.run([sys.executable, "out.py"], cwd=tmp_path, capture_output=True, text=True, timeout=30)
    assert run.stderr.strip().splitlines()[-1] == "ZeroDivisionError: division by zero"


def test_anywhere_lets_the_failure_move(tmp_path: Path) -> None:
    (tmp_path / "stats.py").write_text(MEAN, encoding="utf-8")
    done = astreduce("reduce", "stats.py", "-o", "out.py", "--report", "r.json", "--anywhere", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "failing anywhere (--anywhere)" in done.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["failure"]["same_place"] is False
    assert report["failure"]["raised_at"]["function"] in ("mean", "helper", None)


def test_a_helper_raising_the_same_error_is_unresolved_not_interesting() -> None:
    from astreduce.oracles.options import OracleOptions
    from astreduce.reduce.single import reduce_source

    # the helper's division is no longer caught: without the place check, `helper([])` alone would do
    text = MEAN.replace("    try:\n        return 1 / 0\n    except ZeroDivisionError:\n        return None\n", "    return 1 / len(values) if values else None\n")
    result = reduce_source(text, filename="stats.py", options=OracleOptions(), format=True)
    assert result.provenance is not None and result.provenance.raised_from is not None
    assert result.provenance.raised_from.function == "mean"


# --- candidates that parse -------------------------------------------------------------

#: A formatter like black: exit 123 on a file it cannot parse and on the construct it crashes on, both ending
#: with the same last line of standard error (so the default signature cannot tell them apart).
TOOL = """\
import ast, sys
text = sys.stdin.read()
try:
    tree = ast.parse(text)
except SyntaxError:
    print("error: cannot format -: Cannot parse", file=sys.stderr)
    print("1 file would fail to reformat.", file=sys.stderr)
    sys.exit(123)
if any(isinstance(node, ast.Delete) and any(isinstance(t, ast.Tuple) and not t.elts for t in node.targets) for node in ast.walk(tree)):
    print("error: cannot format -: INTERNAL ERROR", file=sys.stderr)
    print("1 file would fail to reformat.", file=sys.stderr)
    sys.exit(123)
"""


def test_a_tool_oracle_without_stderr_ends_in_a_result_that_parses(tmp_path: Path) -> None:
    (tmp_path / "tool.py").write_text(TOOL, encoding="utf-8")
    program = _stdlib_text().split("\ndef dedent")[0] + "\ndef cleanup(cache):\n    del (),\n    return cache\n"
    (tmp_path / "notes.py").write_text(program, encoding="utf-8")
    done = astreduce(
        "reduce", "notes.py", "--run", f"{sys.executable} {tmp_path / 'tool.py'}", "--stdin", "-o", "out.py", cwd=tmp_path, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "candidates must parse, as the input does" in done.stderr
    out = (tmp_path / "out.py").read_text()
    compile(out, "out.py", "exec")  # it parses
    assert re.search(r"del \(\)", out), out


def test_allow_syntax_errors_lets_them_be_interesting(tmp_path: Path) -> None:
    (tmp_path / "tool.py").write_text(TOOL, encoding="utf-8")
    (tmp_path / "notes.py").write_text("def cleanup(cache):\n    del (),\n    return cache\n", encoding="utf-8")
    done = astreduce(
        "reduce", "notes.py", "--run", f"{sys.executable} {tmp_path / 'tool.py'}", "--stdin", "-o", "out.py", "--allow-syntax-errors",
        cwd=tmp_path, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "candidates may have syntax errors (--allow-syntax-errors)" in done.stderr
    with pytest.raises(SyntaxError):
        compile((tmp_path / "out.py").read_text(), "out.py", "exec")


# --- annotate and the bug report ----------------------------------------------------------


def _markup(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    for name in ("input.py", "check.py"):
        (tmp_path / name).write_text((CORPORA / "markup_stripping" / name).read_text(encoding="utf-8"), encoding="utf-8")
    return astreduce(
        "reduce", "input.py", "--append", "check.py", "--expect", "AssertionError:My Test", "-o", "out.py", *args, cwd=tmp_path,
    )


def test_annotate_ends_each_line_with_its_origin(tmp_path: Path) -> None:
    done = _markup(tmp_path, "--annotate", "--report", "r.json", "-q")
    assert done.returncode == 0, done.stderr
    out = (tmp_path / "out.py").read_text()
    report = json.loads((tmp_path / "r.json").read_text())
    (entries,) = report["origins"].values()
    assert len(entries) == len(out.splitlines())
    for line, entry in zip(out.splitlines(), entries):
        code, marker, origin = line.partition("  # from ")
        assert marker and origin == f"{entry['file']}:{entry['origin_line']}", (line, entry)
    assert report["renames"] == {"tag": "b", "quote": "d", "out": "e"}
    # the comments change nothing: the annotated result still fails as the input does
    run = subprocess.run(
        [sys.executable, "-c", out + "\n" + (tmp_path / "check.py").read_text()], capture_output=True, text=True, timeout=60,
    )
    assert run.stderr.strip().endswith("AssertionError: My Test")


def _reproduce_section(markdown: str) -> str:
    found = re.search(r"## Reproduce\n\n```sh\n(.*?)\n```", markdown, re.S)
    assert found, markdown
    return found.group(1)


def _renders(markdown: str) -> str:
    import markdown as md

    html = md.markdown(markdown, extensions=["fenced_code", "tables"])
    assert "<table>" in html and "<pre><code" in html
    return html


def test_the_bug_report_renders_and_its_command_shows_the_failure(tmp_path: Path) -> None:
    done = _markup(tmp_path, "--bug-report", "bug.md")
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "bug.md").read_text()
    _renders(page)
    assert page.startswith("# AssertionError('My Test'), reduced")
    assert "## The failure" in page and "AssertionError: My Test" in page
    assert "| `out.py` | 1 | `input.py:1` | `remove_html_markup` |" in page
    assert re.search(r"^- CPython 3\.\d+\.\d+ ", page, re.M)
    command = _reproduce_section(page)
    run = subprocess.run(command, shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and run.stderr.strip().endswith("AssertionError: My Test"), run.stderr


def test_the_bug_report_names_third_party_distributions(tmp_path: Path) -> None:
    (tmp_path / "prog.py").write_text(
        "import click\nimport json\n\n\ndef parse(value):\n    return click.INT.convert(json.loads(value), None, None)\n\n\nparse('\"abc\"')\n"
    )
    done = astreduce("reduce", "prog.py", "-o", "out.py", "--bug-report", "bug.md", "-q", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "bug.md").read_text()
    from importlib.metadata import version

    assert f"- `click` {version('click')} (imported as `click`)" in page
    assert "`json`" not in page.split("## Environment")[1]  # the standard library is not a distribution
    run = subprocess.run(_reproduce_section(page), shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert "BadParameter" in run.stderr


@pytest.mark.slow  # 21 s: a whole pytest reduction; the bug reports of files and trees stay in the suite
def test_a_pytest_bug_report_runs_pytest_in_the_reduced_project(tmp_path: Path) -> None:
    import shutil

    project = tmp_path / "project"
    shutil.copytree(HERE / "data" / "pytest_project", project)
    node = "tests/test_geometry.py::TestPolygonArea::test_square_away_from_the_origin"
    done = astreduce(
        "pytest", node, "-o", tmp_path / "out", "--bug-report", tmp_path / "bug.md", "--report", tmp_path / "r.json",
        "--max-tests", "60", "-q", cwd=project, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "bug.md").read_text()
    _renders(page)
    command = _reproduce_section(page)
    assert command.startswith("cd ") and f"-m pytest {shlex.quote(node)}" in command
    run = subprocess.run(command, shell=True, cwd=project, capture_output=True, text=True, timeout=120)
    assert run.returncode == 1 and "assert 5.0 == 4" in run.stdout, run.stdout
    report = json.loads((tmp_path / "r.json").read_text())
    raised = report["failure"]["raised_at"]
    assert raised["origin_file"] == "tests/test_geometry.py" and raised["function"] == "TestPolygonArea.test_square_away_from_the_origin"
    for path, entries in report["origins"].items():
        assert len(entries) == len((tmp_path / "out" / path).read_text().splitlines()), path


# --- the result verified in the form it is written ---------------------------------------------------------------


@pytest.mark.parametrize("reproducing", [
    {"b", "B", "B#", "b#"}, {"b", "B", "b#"}, {"b", "b#"}, {"b", "B#", "b#"}, {"b"}, {"B", "B#"}, set(),
])
@pytest.mark.parametrize("steps", ["format", "annotate", "both", "neither"])
def test_the_result_is_run_once_in_the_form_it_is_written_and_each_step_alone_only_when_that_fails(
    reproducing: set[str], steps: str,
) -> None:
    """``b`` the result, ``B`` formatted, ``#`` annotated: the forms that reproduce. The written form must be one
    that was run and reproduced (or ``b`` unverified), and the most finished of them."""
    from astreduce.reduce.verify import verify_and_format

    runs: list[str] = []

    def reproduces(text: str) -> bool:
        runs.append(text)
        return text in reproducing

    pretty = (lambda text: text.upper()) if steps in ("format", "both") else None
    annotate = (lambda text: text + "#") if steps in ("annotate", "both") else None
    written, verified, formatted, notes = verify_and_format("b", reproduces, pretty, annotate)
    finished = ("B" if pretty else "b") + ("#" if annotate else "")
    if finished in reproducing:
        assert (written, verified, runs) == (finished, True, [finished])  # one run: the form written
    elif "b" not in reproducing:
        assert (written, verified, formatted) == ("b", False, False) and notes[-1].startswith("the final result did not")
    else:
        candidates = [f for f in ("b", "B", "b#", "B#") if f in reproducing and (pretty or "B" not in f) and (annotate or "#" not in f)]
        assert verified and written in runs and written in candidates
        assert formatted == written.startswith("B")
        assert len(runs) == len(set(runs)), runs  # no form is run twice
        if pretty and "B" in reproducing:
            assert formatted  # black kept when it reproduces alone
        if annotate and written.endswith("#") is False:
            assert any("origins as comments" in note for note in notes)
    assert verified == (written in reproducing)
