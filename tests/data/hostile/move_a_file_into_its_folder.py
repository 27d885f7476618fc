import os

try:
    os.rename(os.path.join(os.environ["HOSTILE_OUTSIDE"], "keep.txt"), "stolen.txt")
except OSError:
    pass
raise AssertionError("hostile")
