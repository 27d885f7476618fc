import os

try:
    with open(os.path.join(os.environ["HOSTILE_OUTSIDE"], "keep.txt"), "w") as file:
        file.write("overwritten\n")
except OSError:
    pass
raise AssertionError("hostile")
