# flags: --require "def f"
def f():
    """Only a docstring."""
# output
def f():
    pass
