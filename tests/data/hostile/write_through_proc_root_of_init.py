# another process's root folder through /proc (pid 1's, its parent's): the same files, another way in
import os

for pid in ("1", str(os.getppid())):
    try:
        with open("/proc/%s/root%s/keep.txt" % (pid, os.environ["HOSTILE_OUTSIDE"]), "w") as file:
            file.write("through /proc\n")
    except OSError:
        pass
raise AssertionError("hostile")
