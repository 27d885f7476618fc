# flags: --require "await x"
async def f():
    async with a as b:
        async for x in b:
            await x
# output
async def f():
    await x
