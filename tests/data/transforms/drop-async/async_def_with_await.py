# flags: --require "g()"
async def f():
    await g()
# output
def f():
    g()
