# a link to a file outside, in a folder it made read-only: a cleanup that makes every entry writable
# again with chmod follows the link and changes the file outside (issue 43, problem 5)
import os

try:
    os.mkdir("ro")
    os.symlink(os.path.join(os.environ["HOSTILE_OUTSIDE"], "keep.txt"), os.path.join("ro", "link"))
    os.symlink(os.environ["HOSTILE_OUTSIDE"], os.path.join("ro", "folder"))
    os.chmod("ro", 0o500)
except OSError:
    pass
raise AssertionError("hostile")
