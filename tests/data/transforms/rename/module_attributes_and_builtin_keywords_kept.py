# flags: --require "import os"
import os


def join_all(path, end):
    os.path.join(path, end)
    print(path, end=end)
# output
import os


def a(b, c):
    os.path.join(b, c)
    print(b, end=c)
