# flags: --require "@property"
class A:
    @property
    async def value(self):  # comment
        return await self.load()
# output
class A:
    @property
    def value(self):  # comment
        return self.load()
