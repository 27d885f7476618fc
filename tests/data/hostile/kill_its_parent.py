import os
import signal

try:
    os.kill(os.getppid(), signal.SIGKILL)
except OSError:
    pass
raise AssertionError("hostile")
