# flags: --require "needle"
async def f():
    return await needle
# output
async def f():
    return needle
