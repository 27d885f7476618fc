import os

try:
    os.truncate(os.path.join(os.environ["HOSTILE_OUTSIDE"], "keep.txt"), 0)
except OSError:
    pass
raise AssertionError("hostile")
