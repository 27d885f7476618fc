# flags: --require "print("
def pairs():
    pair = 1, 2
    print(pair[0])
# output
def pairs():
    print((1, 2)[0])
