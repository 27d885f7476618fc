# flags: --require "await"
async def f():
    return await g(x)
# output
async def f():
    return await g
