# flags: --require ".attr"
y = obj.attr
# output
y = None.attr
