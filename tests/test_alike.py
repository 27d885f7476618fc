"""The alike key statement by statement (CodeKey) says what the key of the whole text (code_key) says."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from astreduce.search.alike import CodeKey, code_key

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


@pytest.mark.parametrize("text", TRICKY.values(), ids=TRICKY.keys())
def test_a_tricky_text_compiles_or_not_as_a_whole(text: str) -> None:
    assert (CodeKey()(text) is None) == (code_key(text) is None)


def test_layout_and_comments_are_alike_and_code_is_not() -> None:
    key = CodeKey()
    assert key("x = 1\ndef f():\n    return x\n") == key("# c\nx = (1)\n\n\ndef f():  # c\n    return x\n")
    assert key("x = 1\ndef f():\n    return x\n") != key("x = 1\ndef f():\n    return -x\n")


def test_a_string_after_the_first_statement_is_no_docstring() -> None:
    key = CodeKey()
    assert key('x = 1\n"hello"\n') != key('x = 1\n__doc__ = "hello"\n')
    assert key('"hello"\nx = 1\n') == key('"hello"  # the docstring\nx = 1\n')


@st.composite
def edited(draw: st.DrawFn) -> tuple[str, str]:
    """Two edits of one stdlib module: lines deleted, comments and blank lines added."""
    lines = draw(st.sampled_from(SOURCES)).splitlines(keepends=True)

    def edit() -> str:
        out = list(lines)
        for _ in range(draw(st.integers(0, 3))):
            at = draw(st.integers(0, len(out) - 1))
            out[at : at + draw(st.integers(1, 3))] = []
        for _ in range(draw(st.integers(0, 2))):
            at = draw(st.integers(0, len(out)))
            out[at:at] = [draw(st.sampled_from(["# note\n", "\n", "    # indented note\n"]))]
        return "".join(out)

    return edit(), edit()


@settings(max_examples=60, deadline=None)
@given(edited())
def test_equal_split_keys_mean_equal_code(pair: tuple[str, str]) -> None:
    key = CodeKey()
    first, second = pair
    split = key(first), key(second)
    whole = code_key(first), code_key(second)
    assert [k is None for k in split] == [k is None for k in whole]
    if split[0] is not None and split[0] == split[1]:
        assert whole[0] == whole[1]
    if whole[0] is not None and whole[0] == whole[1]:
        assert split[0] == split[1]  # and no test is lost: texts alike whole are alike split


def test_only_the_first_statement_is_a_docstring_even_after_pass() -> None:
    key = CodeKey()
    assert key('pass\n"hello"\n') != key('"hello"\n')
    assert code_key('pass\n"hello"\n') != code_key('"hello"\n')
