"""A candidate that unbinds a name its run reads is UNRESOLVED without a test (``source/unbound.py``).

The two sides are checked on texts (the reads nothing binds, by scope; the
reads on executed lines, by the same scope names), on the standard library's
modules (every scope the executed reads name is one ``symtable`` names), by a
property against real runs (a candidate the check calls broken never raises
the target), and through ``astreduce reduce DIR`` (the report counts the
candidates answered so, none when the target is a ``NameError``).
"""

from __future__ import annotations

import builtins
import json
import os
import subprocess
import symtable
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from astreduce.reduce.unexecuted import still_asked
from astreduce.source.unbound import RunReads, Unbinding, executed_reads, names_of, sure_to_differ

ASTREDUCE = [sys.executable, "-m", "astreduce"]
ENV = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}

UNBOUND_CASES = [
    ("import os\nos.getcwd()\n", set()),
    ("os.getcwd()\n", {("", "os")}),
    ("def f():\n    return g(x)\n", {("f", "g"), ("f", "x")}),
    ("def f(x):\n    y = x\n    return y\n", set()),
    ("class A:\n    z = 1\n    def m(self):\n        return z\n", {("A.m", "z")}),  # a class body is no enclosing scope
    ("def f():\n    return [y for y in range(3) if w]\n", {("f.listcomp", "w")}),
    ("def f():\n    def g():\n        return v\n    v = 1\n    return g\n", set()),  # v is f's, free in g
    ("print(len([]), __name__, __file__)\n", set()),
    ("from m import *\nuse(anything)\n", None),  # its names are not known
    (  # a class's members are read apart, under its header: its decorators and bases are the module's
        "@deco(lambda: q)\nclass C(Base, key=(lambda: r)):\n    a = x\n    def m(self):\n        return y + a\n",
        {("", "deco"), ("", "Base"), ("lambda", "q"), ("lambda", "r"), ("C", "x"), ("C.m", "y"), ("C.m", "a")},
    ),
    ("class C:\n    __p = 1\n    def m(self):\n        return __p\n", {("C.m", "_C__p")}),  # mangled in its class
    ("def f(:\n", None),
]


@pytest.mark.parametrize(("text", "expected"), UNBOUND_CASES)
def test_the_reads_nothing_binds_are_named_by_their_scope(text: str, expected: set[tuple[str, str]] | None) -> None:
    names = names_of(text)
    assert (None if names is None else names.unbound) == (None if expected is None else frozenset(expected))


SCOPED = '''import os, sys
from typing import Foo


@decorate(os.sep)
def f(a: Foo, b=sys.argv) -> Bar:
    x: Local = 1
    try:
        return os.path.join(a)
    except ValueError:
        return [y for y in b if y]


class A(Base, metaclass=Meta):
    z = zed
    g = lambda: lam
'''


def test_executed_reads_are_scoped_where_python_evaluates_them() -> None:
    every = executed_reads(SCOPED, range(1, 40))
    module = {name for scope, name in every if scope == ""}
    # decorators, defaults, annotations and bases are evaluated where the definition stands
    assert {"decorate", "os", "sys", "Foo", "Bar", "Base", "Meta"} <= module
    assert "Local" not in {name for _, name in every}  # a function's variable annotation is never evaluated
    assert {("f", "os"), ("f", "a"), ("f", "ValueError"), ("f", "b"), ("f.listcomp", "y"), ("A", "zed"), ("A.lambda", "lam")} <= every
    assert ("f.listcomp", "b") not in every  # the first iterable is the enclosing scope's
    only = executed_reads(SCOPED, [9])  # only the return in the try ran
    assert only == {("f", "os"), ("f", "a")}


def test_what_a_line_evaluates_only_sometimes_is_no_read_of_it() -> None:
    text = "def f(locale, key):\n    if locale and key in TABLE or OTHER:\n        return A if key else B\n"
    assert executed_reads(text, [1, 2, 3]) == {("f", "locale"), ("f", "key")}
    both = "def g(check):\n    return out.any() if check else [out, B]\n"
    assert executed_reads(both, [1, 2]) == {("g", "check"), ("g", "out")}  # whichever branch runs reads out


def test_postponed_annotations_are_no_reads() -> None:
    postponed = executed_reads("from __future__ import annotations\n" + SCOPED, range(1, 40))
    assert not {"Foo", "Bar"} & {name for _, name in postponed}
    assert ("", "Base") in postponed


def _scopes(table: symtable.SymbolTable, path: str = "") -> set[str]:
    found = {path}
    for child in table.get_children():
        found |= _scopes(child, f"{path}.{child.get_name()}" if path else child.get_name())
    return found


STDLIB_FILES = sorted(Path(os.__file__).parent.joinpath("email").glob("*.py"))[:12] + [Path(os.__file__).parent / "argparse.py"]


@pytest.mark.parametrize("path", STDLIB_FILES, ids=lambda p: p.name)
def test_every_scope_an_executed_read_names_is_a_scope_symtable_names(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    reads = executed_reads(text, range(1, text.count("\n") + 2))
    assert reads
    assert {scope for scope, _ in reads} <= _scopes(symtable.symtable(text, path.name, "exec"))


def names_by_whole_text(text: str) -> tuple[frozenset[str], frozenset[tuple[str, str]]] | None:
    """What :func:`names_of` finds statement by statement, found from one ``symtable`` of the whole text."""
    try:
        top = symtable.symtable(text, "<whole>", "exec")
    except SyntaxError:
        return None
    bound = frozenset(s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported() or s.is_namespace())
    reads = set()
    todo = [(top, "")]
    while todo:
        table, scope = todo.pop()
        for symbol in table.get_symbols():
            name = symbol.get_name()
            if symbol.is_referenced() and (table is top or symbol.is_global()) and name not in bound:
                reads.add((scope, name))
        todo += [(child, f"{scope}.{child.get_name()}" if scope else child.get_name()) for child in table.get_children()]
    return bound, frozenset(read for read in reads if read[1] not in dir(builtins) and not read[1].startswith("__"))


WHOLE_TEXT_CASES = [
    *STDLIB_FILES,
    Path(os.__file__).parent / "dataclasses.py",  # postpones no annotations; decorators over several lines
    Path(os.__file__).parent / "typing.py",
    Path(os.__file__).parent / "importlib" / "metadata" / "__init__.py",
]


@pytest.mark.parametrize("path", WHOLE_TEXT_CASES, ids=lambda p: p.name)
def test_a_module_s_names_are_its_statements_names(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    names = names_of(text)
    assert names is not None and names_by_whole_text(text) == (names.bound, frozenset(r for r in names.unbound if not r[1].startswith("__")))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_a_candidate_s_names_are_found_from_its_statements_as_from_its_whole_text(data: st.DataObject) -> None:
    lines = data.draw(st.sampled_from(WHOLE_TEXT_CASES)).read_text(encoding="utf-8").splitlines(keepends=True)
    first = data.draw(st.integers(0, len(lines) - 1))
    last = data.draw(st.integers(first, min(len(lines), first + 40)))
    postponed = data.draw(st.booleans())
    candidate = ("from __future__ import annotations\n" if postponed else "") + "".join(lines[:first] + lines[last:])
    names = names_of(candidate)
    whole = names_by_whole_text(candidate)
    if names is None or whole is None:  # an ``import *``, a module ``__getattr__``, or a cut in a statement
        assert names is None and (whole is None or "import *" in candidate or "__getattr__" in whole[0])
        return
    assert whole == (names.bound, frozenset(r for r in names.unbound if not r[1].startswith("__")))


def test_only_a_target_no_unbound_read_can_raise_is_sure_to_differ() -> None:
    assert sure_to_differ("pint.errors.DimensionalityError") and sure_to_differ("KeyError")
    assert not sure_to_differ("NameError") and not sure_to_differ("builtins.UnboundLocalError")
    assert not sure_to_differ("Exception") and not sure_to_differ("")


PROGRAM = '''import math
import builtins
import json
LIMIT = 3
data = json.dumps([1, 2])


def scale(x):
    factor = math.sqrt(4)
    total = x * factor
    return total


def describe(n):
    parts = [str(n), data]
    label = ", ".join(parts)
    return label


class Box:
    size = LIMIT

    def grow(self):
        bigger = scale(self.size)
        return bigger


value = Box().grow()
text = describe(value)
raise KeyError(text)
'''
LINES = PROGRAM.splitlines(keepends=True)
STATEMENT_LINES = [i for i, line in enumerate(LINES) if line.strip() and not line.lstrip().startswith(("def ", "class ", "raise"))]


def _without(lines: set[int]) -> str:
    kept = []
    for i, line in enumerate(LINES):
        if i in lines:
            indent = line[: len(line) - len(line.lstrip())]
            kept.append(f"{indent}pass\n")
        else:
            kept.append(line)
    return "".join(kept)


@settings(max_examples=40, deadline=None)
@given(st.sets(st.sampled_from(STATEMENT_LINES), min_size=1, max_size=4))
def test_a_candidate_the_check_calls_broken_never_raises_the_target(deleted: set[int]) -> None:
    """Every line of the program runs; a candidate that unbinds a name one of them reads must end otherwise."""
    check = Unbinding(RunReads(executed_reads(PROGRAM, range(1, len(LINES) + 1))))
    candidate = _without(deleted)
    if not check(PROGRAM, candidate):
        return
    run = subprocess.run([sys.executable, "-c", candidate], capture_output=True, text=True, timeout=30, env=ENV)
    assert run.returncode != 0 and "KeyError" not in run.stderr.splitlines()[-1], candidate  # an error, but not the target


def test_the_check_leaves_alone_what_only_unexecuted_lines_read() -> None:
    check = Unbinding(RunReads(executed_reads(PROGRAM, [i + 1 for i, line in enumerate(LINES) if "math" not in line])))
    assert not check(PROGRAM, PROGRAM.replace("import math\n", ""))  # only a line that never ran reads math
    assert check(PROGRAM, PROGRAM.replace("import json\n", ""))
    assert not check(PROGRAM, PROGRAM.replace("import json\n", "").replace("data = json.dumps([1, 2])", "data = '[1, 2]'"))
    assert not check(PROGRAM, PROGRAM.replace("parts = [str(n), data]", "parts = [str(n)]"))  # no binding changed
    # a change that begins inside a name still sees the whole name
    renamed = PROGRAM.replace("LIMIT = 3", "LIM = 3")
    assert check(PROGRAM, renamed) and check(PROGRAM, PROGRAM.replace("LIMIT = 3", "LIMITS = 3"))


def test_a_name_another_module_imports_by_name_stays_bound() -> None:
    module = "import os\nSEP = os.sep\n\n\ndef helper():\n    return 1\n"
    check = Unbinding(RunReads(frozenset({("", "os")}), imported=frozenset({"helper"})))
    assert check(module, module.replace("def helper():\n    return 1\n", "")) and check(module, module.replace("helper", "other"))
    assert not check(module, module.replace("SEP = os.sep\n", ""))  # nothing imports SEP, and os is still bound


def test_only_the_imports_still_in_the_tree_ask_for_names() -> None:
    tree = {"pkg/__init__.py": "", "pkg/a.py": "X = 1\nY = 2\n", "pkg/b.py": "from .a import X\ntry:\n    from pkg.a import Y\nexcept ImportError:\n    pass\n"}
    run = RunReads(frozenset(), imported=frozenset({"X", "Y", "Z"}))
    assert still_asked(tree, "pkg/a.py", run).imported == {"X", "Y"}  # Z: the import that asked for it went
    assert still_asked({**tree, "pkg/b.py": "def late():\n    from .a import X\n"}, "pkg/a.py", run).imported == set()


PACKAGE = {
    "pkg/__init__.py": "",
    "pkg/core.py": '''import os
import builtins
import json
import textwrap

SEPARATOR = os.sep
TABLE = json.loads("[1, 2, 3]")


def pick(items):
    first = items[0]
    chosen = textwrap.dedent(str(first))
    return chosen


def index(items, key):
    position = items.index(key)
    return TABLE[position]
''',
    "main.py": '''from pkg.core import index, pick

pick(["a"])
index([1, 2], 5)
''',
}


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def _reduce(tmp_path: Path, *options: str) -> dict[str, object]:
    source = tmp_path / "in"
    _write(source, PACKAGE)
    report = tmp_path / "r.json"
    done = subprocess.run(
        [*ASTREDUCE, "reduce", str(source), "--entry", "main.py", "-o", str(tmp_path / "out"), "--report", str(report), "-q",
         "--coverage-first", *options],
        capture_output=True, text=True, timeout=300, env=ENV,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(report.read_text())


def test_a_tree_s_candidates_that_unbind_what_the_run_reads_are_answered_without_a_test(tmp_path: Path) -> None:
    report = _reduce(tmp_path)
    assert report["unbound_rejections"] > 0
    assert report["verified"]
    assert report["outcomes"]["FAIL"] + report["outcomes"]["PASS"] + report["outcomes"]["UNRESOLVED"] == report["tests"]


def test_no_candidate_is_answered_so_when_the_target_is_a_name_error(tmp_path: Path) -> None:
    package = {**PACKAGE, "main.py": "from pkg.core import pick\n\npick(['a'])\nundefined_here\n"}
    source = tmp_path / "in"
    _write(source, package)
    report = tmp_path / "r.json"
    done = subprocess.run(
        [*ASTREDUCE, "reduce", str(source), "--entry", "main.py", "-o", str(tmp_path / "out"), "--report", str(report), "-q", "--coverage-first"],
        capture_output=True, text=True, timeout=300, env=ENV,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(report.read_text())["unbound_rejections"] == 0
