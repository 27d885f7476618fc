# a subfolder of its own replaced by a link to the outside folder, then a write into it
import os

try:
    os.mkdir("sub")
    os.rmdir("sub")
    os.symlink(os.environ["HOSTILE_OUTSIDE"], "sub")
    with open(os.path.join("sub", "via-link.txt"), "w") as file:
        file.write("escaped\n")
except OSError:
    pass
raise AssertionError("hostile")
