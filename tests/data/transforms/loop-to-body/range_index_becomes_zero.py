# flags: --require "print("
def show(items):
    for i in range(len(items)):
        print(items[i], i + 1)
# output
def show(items):
    print(items[0], 0 + 1)
