import os
import signal

try:
    os.killpg(os.getpgid(os.getppid()), signal.SIGKILL)
except OSError:
    pass
raise AssertionError("hostile")
