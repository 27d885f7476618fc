"""python-dateutil 2.7.0 regression: parser.parse raises
decimal.InvalidOperation, not ValueError, on a malformed time.

https://github.com/dateutil/dateutil/issues/632 (works in 2.6.1, fixed in
2.7.1 by https://github.com/dateutil/dateutil/pull/636).
The candidate directory is the current directory, first on sys.path.
"""
import os

import pytest


def test_malformed_time_raises_value_error():
    import dateutil
    from dateutil.parser import parse

    assert os.path.dirname(os.path.dirname(os.path.abspath(dateutil.__file__))) == os.getcwd()
    with pytest.raises(ValueError):
        parse("1: test")
