from collections import deque


def pick(items, index):
    return items[index]


def rotate(items, steps):
    d = deque(items)
    d.rotate(steps)
    return list(d)


jobs = ["build", "test", "deploy"]
order = rotate(jobs, 1)
print(pick(order, 0), pick(order, 2))
print(pick(order, len(order) + 3))
