# flags: --require "read()"
def load(path):
    with open(path) as handle:
        return handle.read()
# output
def load(path):
    handle = open(path)
    return handle.read()
