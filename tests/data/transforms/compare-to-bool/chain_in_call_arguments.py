# flags: --require "print(" --require "key="
print(a < b < c, key=x is not None)
# output
print(False, key=False)
