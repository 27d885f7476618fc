# flags: --require "async def"
async def main(stream):
    async with lock as held:
        async for item in stream:
            print(item, held)
# output
async def main(stream):
    with lock as held:
        for item in stream:
            print(item, held)
