import os

try:
    os.chmod(os.path.join(os.environ["HOSTILE_OUTSIDE"], "keep.txt"), 0o777)
except OSError:
    pass
raise AssertionError("hostile")
