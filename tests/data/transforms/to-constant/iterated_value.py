# flags: --require "for x in"
for x in load(path):
    pass
# output
for x in '':
    pass
