# flags: --require "needle"
async def f():
    async with needle as resource:
        pass
# output
async def f():
    needle
