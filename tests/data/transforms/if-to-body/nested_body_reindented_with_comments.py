# flags: --require "b = 2"
def f():
    if x:
        a = 1
        # explains b
        b = 2  # trailing
        s = """
  text in a string keeps its indentation
"""
    return a
# output
def f():
    a = 1
    # explains b
    b = 2  # trailing
    s = """
  text in a string keeps its indentation
"""
    return a
