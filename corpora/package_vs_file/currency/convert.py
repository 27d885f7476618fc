"""Conversion of amounts between currencies."""

from rates import DECIMALS, rate

#: Decimals of a converted amount (the bug: JPY has none, see rates.DECIMALS).
DIGITS = 2


def scale(amount, factor):
    return amount * factor


def to_euros(amount, currency):
    return round(scale(amount, rate(currency)), DIGITS)


def from_euros(amount, currency):
    return round(scale(amount, 1 / rate(currency)), DECIMALS[currency])


def convert_all(amounts, currency):
    return [to_euros(a, currency) for a in amounts]
