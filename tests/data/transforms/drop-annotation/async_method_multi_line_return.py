# flags: --require "async def"
class A:
    async def m(self) -> dict[
        str, int
    ]:
        return {}
# output
class A:
    async def m(self):
        return {}
