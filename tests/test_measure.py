"""The size of a candidate, measured statement by statement, is the size measured whole, to the token."""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from astreduce.source.difference import common_length
from astreduce.source.measure import Measure, measure

#: Texts where a line at column 0 is no statement's start, or that do not tokenize at all.
TRICKY = {
    "docstring with lines at column 0": 'def f():\n    """\nx = (\ndef g():\n"""\n    return 1\ny = 2\n',
    "string continued by a backslash": "s = 'abc\\\ndef'\nt = 1\n",
    "brackets closed at column 0": "x = [\n1,\n2,\n]\ny = (\n3\n)\n",
    "backslash continuation": "y = 1 + \\\n2\nz = y\n",
    "decorators": "import functools\n@functools.lru_cache\n@staticmethod\ndef g(x):\n    return x\n",
    "comments first and between": "#!/usr/bin/env python\n# a comment\n\nimport os\n# between\nx = os.sep  # trailing\n",
    "else and except at column 0": "try:\n    x = 1\nexcept KeyError:\n    pass\nelse:\n    y = 2\nif x:\n    a = 1\nelse:\n    a = 3\n",
    "f-strings": 'name = "x"\nw = 4\ns = f"{name!r:>{w}} and {name}"\nt = f"""\n{name}\n"""\n',
    "an open bracket at the end": "x = 1\ny = (\n2,\n",
    "an unterminated docstring": 'x = 1\n"""never closed\ny = 2\n',
    "bad indentation": "if x:\n        a = 1\n    b = 2\nc = 3\n",
    "stray characters": "x = 1 $ 2\ny = ?\n",
    "not Python at all": "Hello, world! This is (not) a program\n  with odd { lines\n",
    "tabs and spaces": "if x:\n\ta = 1\n\tif y:\n\t    b = 2\nc = 3\n",
    "no newline at the end": "x = 1\ny = 2",
    "carriage returns": "x = 1\r\ny = [\r\n2]\r\nz = 3\r\n",
    "an unclosed quote continued, then a docstring": "msg = 'first part \\\n    second part\nHELP = '''usage:\n\n  prog\n'''\n",
    "an unclosed quote, then triple quotes": "\"\\\n\n'''\n\n'''",
    "a line that is only a backslash": "if x:\n    y = 1\n\\\n  z = 2\n",
    "an f-string left open": "f'{]\n2]''\nx = 1\n",
    "an f-string left open across statements": 'f"""{\n)\nx = 1\nlambda: (yield)\n',
    "empty": "",
    "only comments": "# one\n# two\n",
}


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_tricky_texts_measure_as_whole(name: str) -> None:
    text = TRICKY[name]
    assert Measure()(text) == measure(text)


def test_a_changed_statement_is_the_only_one_counted_again() -> None:
    sizes = Measure()
    text = "".join(f"def f{i}():\n    return {i} + {i}\n" for i in range(50))
    sizes(text)
    counted = len(sizes._counts)
    changed = text.replace("return 7 + 7", "return 7")
    assert sizes(changed) == measure(changed)
    assert len(sizes._counts) == counted + 1


#: Classes whose members are hard to cut: an ``if`` and ``else`` in the body, a docstring and strings with
#: lines at the body's indentation, a header over several lines, decorators, a body on the class line.
CLASSES = {
    "if and else in the body": "class A:\n    if X:\n        def f(self):\n            return 1\n    else:\n        f = None\n    def g(self):\n        pass\n",
    "strings with lines at the body's indentation": 'class A:\n    """doc\n    x = 1\n    """\n    s = """\n    def f(self):\n    """\n    def g(self, t=(\n    1, 2)):\n        return t\n',
    "a header over several lines": "class A(\n    object,\n):\n    x = 1\n    def f(self):\n        return self.x\n",
    "decorators and comments": "import functools\n# a comment\n@functools.total_ordering\nclass A:\n    # first\n    @property\n    def f(self):\n        return 1  # one\n    # between\n    @staticmethod\n    def g():\n        return 2\n",
    "a body on the class line": "class A: x = 1; y = 2\nz = 3\n",
    "a member with a backslash": "class A:\n    x = 1 + \\\n    2\n    y = x\n",
    "tabs": "class A:\n\tdef f(self):\n\t\treturn 1\n\tdef g(self):\n\t\treturn 2\n",
}


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_classes_measured_member_by_member_measure_as_whole(name: str) -> None:
    sizes = Measure(class_from=0)
    text = CLASSES[name]
    assert sizes(text) == measure(text)
    lines = text.splitlines(keepends=True)
    for line in range(len(lines)):  # every line deleted in turn, with the same Measure
        shorter = "".join(lines[:line] + lines[line + 1 :])
        assert sizes(shorter) == measure(shorter)


def test_a_changed_method_of_a_large_class_is_the_only_member_counted_again() -> None:
    sizes = Measure()
    text = "class Big:\n" + "".join(f"    def f{i}(self):\n        return {i} + {i}\n" for i in range(200))
    assert len(text) >= 2048
    sizes(text)
    counted = len(sizes._counts)
    assert counted > 200  # the header and each method: not the class whole
    changed = text.replace("return 7 + 7", "return 7")
    assert sizes(changed) == measure(changed)
    assert len(sizes._counts) == counted + 1


def test_the_kept_pieces_are_bounded() -> None:
    sizes = Measure(kept_chars=200)
    for i in range(100):
        text = f"x{i} = {i}\n" * 10 + f"y = {i}\n"
        assert sizes(text) == measure(text)
    assert sum(len(piece) for piece in sizes._counts) <= 200


_STDLIB = sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))[:80]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_STDLIB), st.lists(st.tuples(st.integers(0, 10_000), st.integers(1, 30)), max_size=6))
def test_stdlib_modules_with_lines_deleted_measure_as_whole(path: Path, cuts: list[tuple[int, int]]) -> None:
    """Deleting runs of lines leaves cuts inside docstrings, brackets and blocks; one Measure sees
    the module and every cut of it, as a reduction would."""
    sizes = Measure()
    lines = path.read_text(encoding="utf-8", errors="surrogateescape").splitlines(keepends=True)
    text = "".join(lines)
    assert sizes(text) == measure(text)
    for start, length in cuts:
        start %= len(lines) + 1
        del lines[start : start + length]
        text = "".join(lines)
        assert sizes(text) == measure(text)


def _naive_common(a: str, b: str, limit: int, from_end: bool) -> int:
    if from_end:
        a, b = a[::-1], b[::-1]
    length = 0
    while length < limit and a[length] == b[length]:
        length += 1
    return length


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet="ab\n", max_size=40),
    st.integers(0, 40_000),
    st.lists(st.tuples(st.integers(0, 50_000), st.sampled_from(["", "b", "bb", "\n"])), max_size=3),
    st.booleans(),
)
def test_common_length_is_the_common_prefix_or_suffix(seed: str, repeat: int, changes: list[tuple[int, str]], from_end: bool) -> None:
    """Across the comparison's blocks (long texts) and inside them: a change anywhere, or none."""
    a = (seed or "a") * (1 + repeat // max(len(seed), 1) // 8)
    b = a
    for at, text in changes:
        at %= len(b) + 1
        b = b[:at] + text + b[at + 1 :]
    limit = min(len(a), len(b))
    assert common_length(a, b, limit, from_end) == _naive_common(a, b, limit, from_end)
