import os

try:
    os.utime(os.path.join(os.environ["HOSTILE_OUTSIDE"], "keep.txt"), (0, 0))
except OSError:
    pass
raise AssertionError("hostile")
