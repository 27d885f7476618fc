# moves a process outside into the cgroup of its test, which astreduce's cleanup would kill (issue 43, problem 1)
import glob
import os

for procs in glob.glob("/sys/fs/cgroup/pids/astreduce-*/cgroup.procs") + glob.glob("/sys/fs/cgroup/astreduce-*/cgroup.procs"):
    try:
        with open(procs, "w") as file:
            file.write(os.environ["HOSTILE_VICTIM"])
    except OSError:
        pass
raise AssertionError("hostile")
