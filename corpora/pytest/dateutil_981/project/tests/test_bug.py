"""dateutil#981: parser.parse("0-100") should raise ParserError (a ValueError), not TypeError."""

import pytest

from dateutil import parser


def test_the_bug():
    with pytest.raises(parser.ParserError):
        parser.parse("0-100")


def test_a_day_past_the_end_of_the_month_is_a_parser_error():
    with pytest.raises(parser.ParserError):
        parser.parse("Feb 30, 2007")
