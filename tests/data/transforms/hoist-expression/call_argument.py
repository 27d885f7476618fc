# flags: --require "len"
print(len(items) + 1)
# output
len
