# flags: --require "as g" --require "g.read"
with open(a) as f, open(b) as g:
    g.read()
    f.read()
# output
with open() as g:
    g.read()
