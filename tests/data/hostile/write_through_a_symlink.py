# a link in its own folder to a file outside, then a write through the link
import os

try:
    os.symlink(os.path.join(os.environ["HOSTILE_OUTSIDE"], "keep.txt"), "link")
    with open("link", "w") as file:
        file.write("through the link\n")
except OSError:
    pass
raise AssertionError("hostile")
