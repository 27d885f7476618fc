"""Pygments 2.11.0 regression: the JSON lexer emits Error tokens for the
whitespace between a key and its ':'.

https://github.com/pygments/pygments/issues/2010 (works in 2.10.0, fixed in
2.11.1 by commit 88ed195d6d3623b8bdc9c7590bccb5dfeb3a7cf7).
The candidate directory is the current directory, first on sys.path.
"""
import os


def test_json_whitespace_before_colon_is_not_an_error():
    import pygments
    from pygments.lexers.data import JsonLexer
    from pygments.token import Error

    assert os.path.dirname(os.path.dirname(os.path.abspath(pygments.__file__))) == os.getcwd()
    tokens = list(JsonLexer().get_tokens('{"foo" : "bar"}'))
    errors = [(str(t), v) for t, v in tokens if t is Error]
    assert errors == []
