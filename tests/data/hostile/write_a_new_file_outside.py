# writes a new file in a folder outside its own, then fails as the test expects
import os

try:
    with open(os.path.join(os.environ["HOSTILE_OUTSIDE"], "new.txt"), "w") as file:
        file.write("written by a candidate\n")
except OSError:
    pass
raise AssertionError("hostile")
