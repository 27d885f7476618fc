# flags: --require "value = "
def prepare(items):
    items.sort()
    head = items[0]
    return head + 1


def main():
    data = [3, 1, 2]
    value = prepare(data)
    print(value)
# output
def main():
    data = [3, 1, 2]
    items = data
    items.sort()
    head = items[0]
    value = head + 1
    print(value)
