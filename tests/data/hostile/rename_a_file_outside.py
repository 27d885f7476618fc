import os

outside = os.environ["HOSTILE_OUTSIDE"]
try:
    os.rename(os.path.join(outside, "keep.txt"), os.path.join(outside, "renamed.txt"))
except OSError:
    pass
raise AssertionError("hostile")
