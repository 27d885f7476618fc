"""Pygments 2.16.0 regression: the built-in 'native' style is no longer
listed (STYLE_MAP, get_all_styles).

https://github.com/napari/napari/issues/6121, fixed upstream in 2.16.1 by
https://github.com/pygments/pygments/pull/2484 (works in 2.15.1).
The candidate directory is the current directory, first on sys.path.
"""
import os


def test_native_style_is_listed():
    import pygments
    from pygments.styles import STYLE_MAP

    assert os.path.dirname(os.path.dirname(os.path.abspath(pygments.__file__))) == os.getcwd()
    assert "native" in STYLE_MAP
