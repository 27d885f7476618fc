# folders nested deeper than Python's recursion limit: shutil.rmtree raised RecursionError (issue 43, problem 7)
import os

try:
    for _ in range(1100):
        os.mkdir("d")
        os.chdir("d")
except OSError:
    pass
raise AssertionError("hostile")
