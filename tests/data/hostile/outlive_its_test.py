# a child in a session of its own, meant to act after its test has ended
import os
import signal
import time

if os.fork() == 0:
    os.setsid()
    time.sleep(3)
    try:
        with open(os.path.join(os.environ["HOSTILE_OUTSIDE"], "late.txt"), "w") as file:
            file.write("written after the test\n")
        os.kill(int(os.environ["HOSTILE_VICTIM"]), signal.SIGUSR1)
    finally:
        os._exit(0)
raise AssertionError("hostile")
