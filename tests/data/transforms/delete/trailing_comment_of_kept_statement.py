# flags: --require "keep ="
x = 1  # trailing comment of x
keep = 2  # keep me
y = 3
# output
keep = 2  # keep me
