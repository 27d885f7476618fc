"""A ledger summary: the average of an empty month divides by zero."""


class Ledger:
    def __init__(self):
        self.entries = []

    def add(self, month, amount):
        self.entries.append((month, amount))

    def months(self):
        return sorted({m for m, _ in self.entries})


def average(values):
    total = 0
    for v in values:
        total += v
    return total / len(values)


def summary(ledger, month):
    amounts = [a for m, a in ledger.entries if m == month]
    return {"month": month, "count": len(amounts), "mean": average(amounts)}


ledger = Ledger()
ledger.add("jan", 120)
ledger.add("jan", 80)
ledger.add("feb", 42)
for month in ledger.months() + ["mar"]:
    print(summary(ledger, month))
