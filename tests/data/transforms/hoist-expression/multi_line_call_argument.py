# flags: --require "a +"
x = f(
    a +
    b,
)
# output
x = (a +
    b)
