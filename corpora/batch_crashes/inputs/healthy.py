def average(values):
    return sum(values) / len(values) if values else 0.0


print(average([1, 2, 3]), average([]))
