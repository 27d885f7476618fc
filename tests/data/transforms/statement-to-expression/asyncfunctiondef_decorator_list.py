# flags: --require "needle"
@needle
async def f():
    pass
# output
needle
