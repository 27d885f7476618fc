# flags: --require "def f"
def f():
    """Return the thing.

    Longer description with a \t tab and 'quotes'.
    """
    return "it's"
# output
def f():
    ''
    return ''
