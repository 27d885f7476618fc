# flags: --require "for"
def walk(spec):
    value, kids = spec
    for kid in kids:
        walk(kid)
# output
def walk(spec):
    for kid in spec[1]:
        walk(kid)
