# flags: --require "async with" --require "async for"
import asyncio


async def main(urls):
    async with session() as s:
        async for chunk in s.stream(urls):
            await asyncio.sleep(0)
    return [await fetch(u) async for u in urls if u]
# output
async def main():
    async with session():
        async for chunk in s.stream():
            pass
