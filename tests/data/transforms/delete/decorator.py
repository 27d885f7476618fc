# flags: --require "@cache"
import functools


@functools.wraps(print)
@cache
@staticmethod
def f():
    return 1
# output
@cache
def f():
    pass
