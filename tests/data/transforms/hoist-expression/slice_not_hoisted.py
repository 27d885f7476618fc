# flags: --require ":"
part = text[start:end]
# output
part = text[start:end]
