# makes a process outside the out-of-memory killer's first choice (its /proc file is the same user's)
import os

try:
    with open("/proc/%s/oom_score_adj" % os.environ["HOSTILE_VICTIM"], "w") as file:
        file.write("1000\n")
except OSError:
    pass
raise AssertionError("hostile")
