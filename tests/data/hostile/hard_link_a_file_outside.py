import os

try:
    os.link(os.path.join(os.environ["HOSTILE_OUTSIDE"], "keep.txt"), "hard")
    with open("hard", "a") as file:
        file.write("through a hard link\n")
except OSError:
    pass
raise AssertionError("hostile")
