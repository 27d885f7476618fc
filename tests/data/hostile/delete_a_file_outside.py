import os

try:
    os.remove(os.path.join(os.environ["HOSTILE_OUTSIDE"], "keep.txt"))
except OSError:
    pass
raise AssertionError("hostile")
