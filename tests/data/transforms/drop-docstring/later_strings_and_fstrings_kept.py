# flags: --require "def f"
def f():
    x = 1
    """Not a docstring."""
async def g():
    f"""Not a docstring either: {x}"""
# output
def f():
    x = 1
    """Not a docstring."""
async def g():
    f"""Not a docstring either: {x}"""
