# flags: --require "if" --require ".real"
y = f(a if b else c).real
# output
y = (a if b else c).real
