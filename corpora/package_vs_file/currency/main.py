"""A price list in yen, totalled in euros and back."""

from convert import convert_all, from_euros, to_euros

prices = [100, 250, 1000]
euros = convert_all(prices, "EUR")
assert euros == [100.0, 250.0, 1000.0]
back = from_euros(to_euros(1000, "EUR"), "JPY")
assert back == round(back)
total = to_euros(sum(prices), "JPY")
assert total == round(total, 0), f"total is {total}"
