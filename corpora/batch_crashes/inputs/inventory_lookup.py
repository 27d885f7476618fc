STOCK = {"item_3": 12, "item_8": 0, "item_11": 5}
PRICES = {"item_3": 2.5, "item_8": 10.0, "item_11": 1.25}


def lookup(table, key):
    return table[key]


def value(order):
    total = 0.0
    for key, count in order:
        if lookup(STOCK, key) < count:
            raise ValueError("not enough " + key)
        total += lookup(PRICES, key) * count
    return total


print(value([("item_3", 2), ("item_11", 1)]))
print(value([("item_3", 1), ("item_17", 4)]))
