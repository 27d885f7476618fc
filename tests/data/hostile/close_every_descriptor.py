import os

os.closerange(3, 4096)
raise AssertionError("hostile")
