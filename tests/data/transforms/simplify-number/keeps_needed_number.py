# flags: --require "[1]" --require "range("
for i in range(10, 20):
    print(items[1], 99)
# output
for i in range(0, 0):
    print(items[1], 0)
