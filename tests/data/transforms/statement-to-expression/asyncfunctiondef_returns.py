# flags: --require "needle"
async def f() -> needle:
    pass
# output
needle
