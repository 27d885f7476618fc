import os

try:
    os.mkdir(os.path.join(os.environ["HOSTILE_OUTSIDE"], "made"))
except OSError:
    pass
raise AssertionError("hostile")
