# flags: --require "needle"
async def f():
    async for item in needle:
        pass
# output
async def f():
    needle
