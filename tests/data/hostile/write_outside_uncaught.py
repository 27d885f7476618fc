# needs its write outside: confined, it fails otherwise, and astreduce says which flag allows it
import os

with open(os.path.join(os.environ["HOSTILE_OUTSIDE"], "report.csv"), "w") as file:
    file.write("a,b\n")
raise AssertionError("hostile")
