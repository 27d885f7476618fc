"""pyparsing 3.1.0 regression: Word(min=2) accepts a 1-character word.

https://github.com/pyparsing/pyparsing/issues/502 (works in 3.0.9, fixed in 3.1.1).
The candidate directory is the current directory, first on sys.path.
"""
import os

import pytest


def test_word_min_is_respected():
    import pyparsing

    assert os.path.dirname(os.path.dirname(os.path.abspath(pyparsing.__file__))) == os.getcwd()
    grammar = pyparsing.Word("abc", min=2)("key")
    with pytest.raises(pyparsing.ParseException):
        grammar.parse_string("a", parse_all=True)
