"""The alike key statement by statement (CodeKey) says what the key of the whole text (code_key) says."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from astreduce.oracles import Target
from astreduce.oracles.execution import ExecOracle
from astreduce.oracles.pieces import ModuleCode
from astreduce.oracles.alike import CodeKey, code_key
from astreduce.source.statements import Cut, recut
from astreduce.source.statements import starts as statement_starts

STDLIB = Path(argparse.__file__).parent
SOURCES = [(STDLIB / name).read_text() for name in ("argparse.py", "shlex.py", "textwrap.py", "fractions.py")]

TRICKY = {
    "docstring at column 0": '"""Doc.\n\nx = 1\n"""\ny = 2\n',
    "decorator": "import functools\n@functools.cache\ndef f():\n    return 1\n",
    "else at column 0": "if 1:\n    x = 1\nelse:\n    x = 2\ntry:\n    pass\nexcept ValueError:\n    pass\nfinally:\n    pass\n",
    "brackets across lines": "x = f(\n1,\n2)\ny = [\n]\n",
    "backslash": "x = 1 + \\\n2\n",
    "future import": "from __future__ import annotations\ndef f(x: int) -> int:\n    return x\n",
    "comments first": "# a comment\n\n# another\nx = 1\n",
    "indented first line": "  x = 1\n",
}


TRICKY_CLASSES = {
    "decorated class": "import functools\n@functools.total_ordering\nclass A:\n    def __lt__(self, o):\n        return 1\n",
    "decorator, then function, then class": "@f\n@g\ndef h():\n    x = 1\n    y = x\nclass A:\n    z = 2\n",
    "docstring of a class at column 0": 'class A:\n    """Doc.\n\nx = 1\n"""\n    y = 2\n',
    "header over lines": "class A(\n    object,\n):\n    x = 1\n    y = 2\n",
    "decorated methods": "class A:\n    @property\n    def x(self):\n        return 1\n    @x.setter\n    def x(self, v):\n        pass\n",
    "global in the body": "class A:\n    x = 1\n    global x\n",
    "comment at column 0 in the body": "class A:\n    x = 1\n# note\n    y = 2\n",
    "else of a member": "class A:\n    if 1:\n        x = 1\n    else:\n        x = 2\n",
    "body on the class line": "class A: x = 1\nclass B:\n    y = 2\n",
}


@pytest.mark.parametrize("text", [*TRICKY.values(), *TRICKY_CLASSES.values()], ids=[*TRICKY, *TRICKY_CLASSES])
def test_a_tricky_text_compiles_or_not_as_a_whole(text: str) -> None:
    assert (CodeKey()(text) is None) == (code_key(text) is None)
    assert (CodeKey(class_from=0)(text) is None) == (code_key(text) is None)


def test_a_global_statement_changes_the_key_of_the_statements_after_it() -> None:
    # "global x" compiles alone to no code at all, yet makes "x = 1" after it store a global
    for key in (CodeKey(), CodeKey(class_from=0)):
        assert key("global x\nx = 1\n") != key("global y\nx = 1\n")
        assert key("class A:\n    global x\n    x = 1\n") != key("class A:\n    global y\n    x = 1\n")
        assert key("x = 1\nglobal x\n") is None  # assigned before its global declaration: no program


def test_members_are_keyed_under_their_class_name() -> None:
    key = CodeKey(class_from=0)
    mangled = "class {}:\n    def f(self):\n        return self.__x\n    def g(self):\n        return super().g()\n"
    assert key(mangled.format("A")) != key(mangled.format("B"))  # self.__x is self._A__x in A
    assert key(mangled.format("A")) == key(mangled.format("A").replace("self):", "self):  # note"))
    assert key('class A:\n    "Doc."\n    x = 1\n') != key('class A:\n    x = 1\n    "Doc."\n')


def test_a_changed_method_compiles_the_method_not_the_class() -> None:
    source = (STDLIB / "argparse.py").read_text()
    key = CodeKey()
    key(source)
    before = key.compiled
    start = source.index("    def _get_positional_actions(self):")
    end = source.index("    def ", start + 1)
    assert key(source[:start] + source[end:]) is not None
    assert key.compiled == before  # a method deleted: every other member's key is known
    changed = source[:start] + source[start:end].replace("if not action.option_strings", "if not action") + source[end:]
    assert key(changed) not in (None, key(source))
    assert key.compiled == before + 1  # that method under the class's header, not the 38 KB class


def _statements_key() -> CodeKey:
    """A key that reads each statement's code from the exec oracle's statement compile, as a reduction's does."""
    return CodeKey(statements=ModuleCode("candidate.py").statement)


@pytest.mark.parametrize("text", [*TRICKY.values(), *TRICKY_CLASSES.values()], ids=[*TRICKY, *TRICKY_CLASSES])
def test_a_tricky_text_keyed_by_its_tests_code_compiles_or_not_as_a_whole(text: str) -> None:
    assert (_statements_key()(text) is None) == (code_key(text) is None)


def test_a_global_statement_changes_the_key_read_from_the_tests_code() -> None:
    key = _statements_key()
    assert key("global x\nx = 1\n") != key("global y\nx = 1\n")
    assert key("class A:\n    global x\n    x = 1\n") != key("class A:\n    global y\n    x = 1\n")
    assert key("x = 1\nglobal x\n") is None


@settings(max_examples=30, deadline=None)
@given(source=st.sampled_from(SOURCES), data=st.data())
def test_keys_read_from_the_tests_code_see_layout_and_not_code(source: str, data: st.DataObject) -> None:
    lines = source.splitlines(keepends=True)
    cut = data.draw(st.integers(0, len(lines) - 1))
    comment = lines[:cut] + ["# a comment the compiler never sees\n"] + lines[cut:]
    key = _statements_key()
    same = key(source)
    assert same is not None
    laid_out = "".join(comment)
    assert (key(laid_out) == same) == (code_key(laid_out) == code_key(source))
    number = data.draw(st.sampled_from(["0", "1", "2"]))
    changed = source.replace(f" = {number}\n", f" = {number}0\n", 1)
    assert (key(changed) == same) == (code_key(changed) == code_key(source))


def test_the_key_and_the_test_compile_a_statement_once() -> None:
    oracle = ExecOracle(Target.parse("ValueError:9"), timeout=30)
    try:
        body = "".join(f"def f{i}():\n    return {i}\n" for i in range(300))
        assert oracle.prepare(body + "raise ValueError(f9())\n", False, True) is not None
        assert oracle.run(body + "raise ValueError(f9())\n").message == "9"
        assert oracle._statements is not None
        compiled = oracle._statements.compiled
        changed = oracle.prepare(body.replace("return 9\n", "return 8\n") + "raise ValueError(f9())\n", False, True)
        assert changed is not None and changed.alike is not None
        assert oracle._statements.compiled == compiled + 1  # the key compiled f9
        verdict = oracle.start(changed).wait()
        assert verdict.run.message == "8" and oracle._statements.compiled == compiled + 1  # its test did not
    finally:
        oracle.close()


@pytest.mark.parametrize("key", [CodeKey(), _statements_key()], ids=["own compile", "the tests' code"])
def test_statements_that_never_run_or_do_nothing_leave_no_trace_in_the_key(key: CodeKey) -> None:
    # what the test runs is the same: a pass does nothing, and nothing after a top-level raise runs
    assert key("x = 1\npass\ny = 2\n") == key("x = 1\ny = 2\n") == key("x = 1\n4\ny = 2\n") == key('x = 1\n"lbs"\ny = 2\n')
    assert key('"A docstring."\nx = 1\n') != key("x = 1\n") and key("x\n") != key("4\n")
    assert key("x = 1\nraise ValueError(x)\ny = 2\n") == key("x = 1\nraise ValueError(x)\nz = f(3)\n")
    assert key("x = 1\nwhile True:\n    pass\ny = 2\n") == key("x = 1\nwhile True:\n    pass\n")
    # a raise that may not happen, or a loop that may end, leaves the statements after it alive
    assert key("x = 1\nif x:\n    raise ValueError(x)\ny = 2\n") != key("x = 1\nif x:\n    raise ValueError(x)\nz = 2\n")
    assert key("while True:\n    break\ny = 2\n") != key("while True:\n    break\nz = 2\n")
    assert key("x = 1\nraise ValueError(x)\ny = (\n") is None  # dead, but it must still compile


def test_where_a_class_starts_is_layout_but_a_number_equal_to_that_line_is_code() -> None:
    # 3.13 stores a class's first line in its body's code (__firstlineno__): a blank line above the
    # class must not change the key; the same constant loaded as a value must still count
    assert code_key("class A:\n    x = 0\n") == code_key("\n\nclass A:\n    x = 0\n")
    assert _statements_key()("y = 1\nclass A:\n    x = 0\n") == _statements_key()("y = 1\n\n\nclass A:\n    x = 0\n")
    assert code_key("class A:\n    x = 1\n") != code_key("\nclass A:\n    x = 2\n")


#: Lines a change may add: starts and non-starts of statements, and what makes a piece incomplete.
_ADDED_LINES = ["x = 1\n", "    y = 2\n", "else:\n", ")\n", "# note\n", "\n", '"""\n', "@f\n", "def g():\n", "class C:\n", "finally\n", "z = (\n"]


@settings(max_examples=60, deadline=None)
@given(source=st.sampled_from([*SOURCES, "".join(TRICKY.values()), "".join(TRICKY_CLASSES.values())]), data=st.data())
def test_a_text_cut_from_the_one_before_is_keyed_as_if_cut_alone(source: str, data: st.DataObject) -> None:
    """Each candidate's key cuts it from the last candidate's pieces (what changed is cut and looked up):
    the same key, and the same places, as a cut of the whole text."""
    lines = source.splitlines(keepends=True)
    following, alone = _statements_key(), _statements_key()
    following(source)
    for _ in range(3):
        start = data.draw(st.integers(0, len(lines)))
        removed = data.draw(st.integers(0, min(40, len(lines) - start)))
        added = data.draw(st.lists(st.sampled_from(_ADDED_LINES), max_size=2))
        candidate = "".join(lines[:start] + added + lines[start + removed :])
        alone._cut = None  # cut whole
        assert following(candidate) == alone(candidate)
        if following._cut is not None and following._cut.text is candidate:
            assert following._cut.starts == alone._cut.starts and following._cut.pieces == alone._cut.pieces  # type: ignore[union-attr]
        if data.draw(st.booleans()):
            lines = candidate.splitlines(keepends=True) or lines  # the next change is made to this one


def _cut_whole(text: str) -> Cut:
    places = tuple(statement_starts(text))
    return Cut(text, places, places)


@pytest.mark.parametrize("source", [*TRICKY.values(), *TRICKY_CLASSES.values(), "".join(TRICKY.values()), "a = 1\n\n\nb = 2\n\n\n\nc = 3\n" * 3])
def test_a_recut_finds_the_starts_a_whole_cut_finds(source: str) -> None:
    """Every change of a line (deleted, or one of the lines a change may add in its place): the places
    where statements may start are those :func:`statement_starts` finds in the whole text."""
    lines = source.splitlines(keepends=True)
    for index in range(len(lines)):
        for replacement in ([], *([line] for line in _ADDED_LINES)):
            text = "".join(lines[:index] + replacement + lines[index + 1 :])
            again = recut(_cut_whole(source), text)
            if again is None:
                continue
            before = [at for at in statement_starts(source) if at < again.starts[0]]
            assert before + again.starts == statement_starts(text), (index, replacement)
