# flags: --require "print("
def check(x):
    if x:
        return 1
    print(x)


check(0)
# output
def check(x):
    if x:
        return 1
    print(x)


check(0)
