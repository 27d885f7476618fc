# flags: --require "data"
with open(p) as f, lock:
    data = f.read()
# output
data = f.read()
