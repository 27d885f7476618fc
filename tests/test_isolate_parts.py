"""The parts of ``astreduce isolate`` that issue 45 added: what each must show, on small real inputs.

* binary reduction finds the needed changes of a chain of dependencies in
  a few tests per needed change;
* re-expression: when NEW moved and rewrote the code around the faulty
  line, the patch ends as OLD's own line edited in place, not NEW's block
  added beside OLD's; a module NEW turned into a package is where its
  lines are matched;
* coverage: changes to code that neither OLD's nor NEW's run executes are
  set aside in one group, and the report says how many;
* a prepared copy of OLD: candidates are links to it plus their changed
  files, and a test that writes into a linked file does not spoil the next;
* ``--max-tests`` ends with the best verified patch so far, exit 0;
* ``--git``'s mistakes are one-line errors.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from astreduce.cli.isolate import isolate_command
from astreduce.dd.binary import binary_reduction
from astreduce.errors import UsageError
from astreduce.isolate import apply_changes, changed_lines, isolate
from astreduce.isolate.git import resolve, revisions
from astreduce.isolate.reexpress import proposals
from astreduce.isolate.workspace import PreparedTree
from astreduce.oracles import Verdict
from astreduce.run import Run
from astreduce.outcome import Outcome


def test_binary_reduction_finds_needed_elements_in_few_tests() -> None:
    needed = {17, 60, 61}
    asked: list[list[int]] = []

    def fails(config: list[int], _if_fails: list[int] | None, _if_not: list[int] | None) -> bool:
        asked.append(config)
        return needed <= set(config)

    found = binary_reduction(list(range(100)), fails)
    assert found == [17, 60, 61]
    assert [100] not in asked and len(asked) <= 3 * 8  # about log2(100) tests per needed element


OLD_MOVED = '''"""Prices."""

TAX = 0.2


def gross(net):
    return net * (1 + TAX)


def total(lines):
    result = 0
    for price, quantity in lines:
        if quantity > 0:
            result += gross(price) * quantity
    return round(result, 2)
'''

#: NEW moved ``total`` above ``gross``, renamed its variables and rewrote its loop; the one faulty change:
#: ``quantity > 1`` where OLD had ``quantity > 0``.
NEW_MOVED = '''"""Prices, with totals first."""


def total(lines):
    """The gross total of (price, quantity) lines."""
    amount = 0
    for unit_price, count in lines:
        if count > 1:
            amount += gross(unit_price) * count
    return round(amount, 2)


TAX = 0.2


def gross(net):
    return net * (1 + TAX)
'''


class TotalOfOne:
    """FAIL when the line of quantity 1 is left out of the total (NEW's bug), PASS when it is counted, else UNRESOLVED."""

    identity = "total-of-one"

    def judge(self, text: str) -> Verdict:
        namespace: dict[str, object] = {}
        try:
            exec(compile(text, "prices.py", "exec"), namespace)  # noqa: S102 - the candidate is the program under test
            value = namespace["total"]([(10.0, 1), (5.0, 2)])  # type: ignore[operator]
        except Exception as error:  # noqa: BLE001 - a broken candidate is UNRESOLVED
            return Verdict(Outcome.UNRESOLVED, Run("exception", exception=type(error).__name__))
        if value == 12.0:  # the line of quantity 1 left out
            return Verdict(Outcome.FAIL, Run("exception", exception="AssertionError"))
        return Verdict(Outcome.PASS if value == 24.0 else Outcome.UNRESOLVED, Run("ok"))

    def calibrate(self, text: str) -> Verdict:
        return self.judge(text)

    def close(self) -> None:
        pass


def test_moved_and_rewritten_code_ends_as_an_edit_of_olds_line() -> None:
    result = isolate(OLD_MOVED, NEW_MOVED, TotalOfOne(), "functions", filename="prices.py")
    assert result.verified and result.refined
    assert result.isolated_text == OLD_MOVED.replace("if quantity > 0:", "if quantity > 1:")
    assert result.isolated_lines == 2 and result.hunks == 1
    assert result.reexpressed  # the edit in place came from re-expression
    without = isolate(OLD_MOVED, NEW_MOVED, TotalOfOne(), "functions", filename="prices.py", reexpress=False)
    assert without.verified and without.isolated_lines > result.isolated_lines


def _tree(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")


def _package(tmp_path: Path) -> tuple[Path, Path]:
    """A package whose NEW changes a module that runs (``core``: the cause, and a harmless change) and many that never do."""
    old = {"main.py": "from pkg.core import f\n\nassert f() == 1, 'f is %r' % f()\n", "pkg/__init__.py": "", "pkg/core.py": "def f():\n    return 1\n\n\ndef g():\n    return 2\n"}
    new = dict(old)
    new["pkg/core.py"] = "def f():\n    return 2\n\n\ndef g():\n    return 3\n"
    for number in range(6):
        old[f"pkg/unused_{number}.py"] = f"def h():\n    return {number}\n"
        new[f"pkg/unused_{number}.py"] = f"def h():\n    return {number + 10}\n"
    _tree(tmp_path / "old", old)
    _tree(tmp_path / "new", new)
    return tmp_path / "old", tmp_path / "new"


def test_changes_no_run_executes_are_set_aside_and_reported(tmp_path: Path) -> None:
    old, new = _package(tmp_path)
    report = tmp_path / "report.json"
    result = CliRunner().invoke(
        isolate_command, [str(old), str(new), "--run", "{python} main.py", "--report", str(report), "-o", str(tmp_path / "p.diff")],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["coverage"]["measured"] is True, data["coverage"]
    pruned = {level["name"]: level["pruned"] for level in data["levels"]}
    assert pruned["files"] == 6, data["levels"]  # the six modules nothing imports: one group, tried last
    assert "6 set aside: no run executes them" in result.stderr
    assert result.stdout == "--- a/pkg/core.py\n+++ b/pkg/core.py\n@@ -1,5 +1,5 @@\n def f():\n-    return 1\n+    return 2\n \n \n def g():\n"


def test_max_tests_ends_with_the_best_verified_patch(tmp_path: Path) -> None:
    old, new = _package(tmp_path)
    report = tmp_path / "report.json"
    result = CliRunner().invoke(
        isolate_command, [str(old), str(new), "--run", "{python} main.py", "--max-tests", "2", "--report", str(report), "-o", str(tmp_path / "p.diff")],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["budget_ended"] is True and data["verified"] is True and data["tests"] <= 2
    assert "--max-tests or --max-time ended the search" in result.stderr
    patched = tmp_path / "patched"
    subprocess.run(["cp", "-r", str(old), str(patched)], check=True)
    subprocess.run(["patch", "-p1", "--batch", "--silent", "-d", str(patched)], input=result.stdout, text=True, check=True)
    failing = subprocess.run([sys.executable, "main.py"], cwd=patched, capture_output=True, text=True, check=False)
    assert "AssertionError: f is 2" in failing.stderr


def test_a_prepared_copy_links_olds_files_and_repairs_one_a_test_wrote(tmp_path: Path) -> None:
    prepared = PreparedTree({"a.py": "a = 1\n", "b.py": "b = 2\n"})
    try:
        _lay_out_twice(prepared, tmp_path)
    finally:
        prepared.close()
    assert not os.path.exists(prepared.folder)


def _lay_out_twice(prepared: PreparedTree, tmp_path: Path) -> None:
    first = tmp_path / "first"
    first.mkdir()
    prepared.lay_out({"a.py": "a = 1\n", "b.py": "b = 20\n"}, str(first))
    assert os.path.samefile(first / "a.py", os.path.join(prepared.folder, "a.py"))
    assert (first / "b.py").read_text() == "b = 20\n" and not os.path.samefile(first / "b.py", os.path.join(prepared.folder, "b.py"))
    os.chmod(first / "a.py", 0o644)  # a test that writes into OLD's file anyway (as root may)
    (first / "a.py").write_text("a = 'spoiled'\n")
    prepared.repair()
    second = tmp_path / "second"
    second.mkdir()
    prepared.lay_out({"a.py": "a = 1\n", "b.py": "b = 2\n"}, str(second))
    assert (second / "a.py").read_text() == "a = 1\n" and prepared.repaired == 1


def test_moved_code_is_proposed_as_an_edit_of_olds_line_with_its_import() -> None:
    """A module NEW turned into a package (dateutil 2.7.0's parser): NEW's line, its comment aside, edits OLD's."""
    old = {
        "pkg/__init__.py": "",
        "pkg/parser.py": "import re\n\n\ndef parse(l, i):\n    if l[i]:\n        value = float(l[i])\n    return value\n",
    }
    new = {
        "pkg/__init__.py": "",
        "pkg/parser/__init__.py": "from ._parser import parse\n",
        "pkg/parser/_parser.py": (
            "import re\nfrom decimal import Decimal\n\n\ndef parse(tokens, idx):\n    if tokens[idx]:\n"
            "        value = Decimal(tokens[idx])  # TODO: try/except for this?\n    return value\n"
        ),
    }
    target = {**old, **{path: text for path, text in new.items() if path not in old}}
    found = {p.label: p for p in proposals(old, new, target, None)}
    label = "pkg/parser.py:6: `value = float(l[i])` -> `value = Decimal(l[i])` (with Decimal imported)"
    assert label in found, sorted(found)
    # NEW's renamed local is unbound in OLD's function: that edit would be a NameError, so it is not proposed
    assert not [name for name in found if "float(tokens[i])" in name or "Decimal(tokens[idx])" in name], sorted(found)
    edited = apply_changes(old, list(found[label].changes))["pkg/parser.py"]
    assert edited == old["pkg/parser.py"].replace("import re\n", "import re\nfrom decimal import Decimal\n").replace("float(", "Decimal(")


def test_git_revisions_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not a git repository"):
        resolve(tmp_path, "HEAD")
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    for command in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "one"]):
        subprocess.run(["git", "-C", str(repo), *command], check=True, env=env)
    with pytest.raises(UsageError, match="'nothing' names no commit"):
        resolve(repo, "nothing")
    with pytest.raises(UsageError, match="are the same commit"), revisions(repo, "HEAD", "HEAD"):
        pass


def test_a_binary_file_that_changed_is_one_changed_line() -> None:
    old, new = {"a.py": "x = 1\n", "z.tar.gz": "\0\1\n\2\n" * 50}, {"a.py": "x = 2\n", "z.tar.gz": "\0\3\n" * 70}
    assert changed_lines(old, new) == 2 + 1
