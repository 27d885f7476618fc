# flags: --require "needle"
async def f():
    async for needle in items:
        pass
# output
async def f():
    needle
