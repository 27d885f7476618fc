# flags: --require "needle"
def f(a=needle +
      2):
    pass
# output
(needle +
      2)
