"""A tree made from an earlier one (``parse(text, like=...)``) is the tree a whole parse of the text makes.

A search parses the text each pass leaves; the statements the pass did not
touch (of the module, or of a class) are copied from the tree before it,
their ids and offsets moved. Every part of the model must come out as a whole
parse makes it: nodes, fields, sequences, drop spans, indentation, blocks.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_transforms import case_paths, read_case

from astreduce.source.render import NodeReducer
from astreduce.source.tree import Tree, parse, parse_or_none
from astreduce.transforms import TextTransform, load_transforms

STDLIB = Path(argparse.__file__).parent
#: Non-ASCII text (offsets are characters, ``ast`` columns UTF-8 bytes), CRLF line ends, decorators,
#: nested classes, f-strings and a docstring at column 0 inside a class.
MIXED = (
    '"""Modül."""\r\nimport functools\r\n\r\n\r\nclass Äußere:\r\n    """Doc.\r\n\r\nx = 1\r\n"""\r\n'
    "    größe = 'π'\r\n\r\n    class Innere:\r\n        @functools.cache\r\n        def f(self, a=1, *, b='ü'):\r\n"
    "            return f'{a!r:>{b}}'  # café\r\n\r\n        @property\r\n        def g(self): return 2\r\n\r\n"
    "    @staticmethod\r\n    def h(x: 'ñ' = (1, 2)) -> dict:\r\n        return {**{}, 'k': [y for y in x if y]}\r\n\r\n\r\n"
    "def außen(*args, **kwargs):\r\n    with open(args[0]) as fh, open(args[1]):\r\n        pass\r\n    return 'ok'\r\n"
)
SOURCES = [MIXED] + [(STDLIB / name).read_text() for name in ("argparse.py", "dataclasses.py", "functools.py", "typing.py")]
#: Transforms whose proposals need no run of the program.
TRANSFORMS = [t for t in load_transforms() if t.name != "value-from-trace" and not isinstance(t, TextTransform)]


def assert_same(whole: Tree, copied: Tree) -> None:
    assert copied.text == whole.text
    assert copied.nodes == whole.nodes
    assert copied.fields == whole.fields
    assert copied.items == whole.items
    assert copied.element_of == whole.element_of
    assert copied.drop_spans == whole.drop_spans
    assert copied.indents == whole.indents
    assert copied.blocks == whole.blocks
    assert whole.syntax is not None and copied.syntax is not None
    assert [type(node) for node in copied.syntax] == [type(node) for node in whole.syntax]


@pytest.mark.parametrize("path", case_paths(), ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_every_single_proposal_on_a_case_parses_as_a_whole_parse(path: Path) -> None:
    """The transforms' cases hold the syntax each transform is about (decorators, classes, parameters,
    f-strings, ``with``, ``match``...): each proposal alone, parsed from the case's tree."""
    case = read_case(path)
    if case.python is not None:
        pytest.skip("the case needs another interpreter's grammar")
    base = parse(case.source)
    reducer = NodeReducer(base)
    for transform in TRANSFORMS:
        for opportunity in transform.opportunities(base):
            candidate = parse_or_none(reducer.render(opportunity.edits))
            if candidate is not None:
                assert_same(candidate, parse(candidate.text, like=base))


@settings(max_examples=8, deadline=None)
@given(source=st.sampled_from(SOURCES), data=st.data())
def test_a_chain_of_changes_parses_as_whole_parses(source: str, data: st.DataObject) -> None:
    """Lines deleted and added in turn, each text parsed from the tree of the one before (as a search
    parses each pass's result): methods move, classes change, statements come and go."""
    tree = parse(source)
    for _ in range(4):
        lines = tree.text.splitlines(keepends=True)
        start = data.draw(st.integers(0, len(lines)))
        removed = data.draw(st.integers(0, 12))
        added = data.draw(st.lists(st.sampled_from(["\n", "x = 1\n", "# note\n", "    pass\n"]), max_size=2))
        text = "".join(lines[:start] + added + lines[start + removed :])
        whole = parse_or_none(text)
        if whole is None:
            continue
        copied = parse(text, like=tree)
        assert_same(whole, copied)
        tree = copied


def test_each_line_of_a_mixed_text_deleted_or_doubled_parses_as_a_whole_parse() -> None:
    """Every line of a text with non-ASCII names, CRLF, decorators and nested classes, deleted or written
    twice: what still parses, parsed from the tree of the whole."""
    base = parse(MIXED)
    lines = MIXED.splitlines(keepends=True)
    compared = 0
    for index in range(len(lines)):
        for changed in (lines[:index] + lines[index + 1 :], lines[: index + 1] + lines[index:]):
            whole = parse_or_none("".join(changed))
            if whole is not None:
                assert_same(whole, parse(whole.text, like=base))
                compared += 1
    assert compared > len(lines)
