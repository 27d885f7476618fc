import os

try:
    with open(os.path.join(os.environ["HOSTILE_OUTSIDE"], "keep.txt"), "a") as file:
        file.write("appended\n")
except OSError:
    pass
raise AssertionError("hostile")
