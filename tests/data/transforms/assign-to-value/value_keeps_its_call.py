# flags: --require "load("
def load(path):
    return open(path)


handle = load("missing.txt")
counts: dict = load("other.txt")
total += load("third.txt")
# output
def load(path):
    return open(path)


load("missing.txt")
load("other.txt")
load("third.txt")
