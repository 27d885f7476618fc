"""Exchange rates against the euro, and the number of decimals each currency is quoted in."""

RATES = {"EUR": 1.0, "JPY": 0.0061, "USD": 0.92, "GBP": 1.17}
DECIMALS = {"EUR": 2, "JPY": 0, "USD": 2, "GBP": 2}


def rate(currency):
    if currency not in RATES:
        raise KeyError(f"unknown currency {currency}")
    return RATES[currency]

"""Conversion of amounts between currencies."""


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

"""A price list in yen, totalled in euros and back."""


prices = [100, 250, 1000]
euros = convert_all(prices, "EUR")
assert euros == [100.0, 250.0, 1000.0]
back = from_euros(to_euros(1000, "EUR"), "JPY")
assert back == round(back)
total = to_euros(sum(prices), "JPY")
assert total == round(total, 0), f"total is {total}"
