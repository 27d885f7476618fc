import os
import signal

try:
    os.kill(int(os.environ["HOSTILE_VICTIM"]), signal.SIGTERM)
except OSError:
    pass
raise AssertionError("hostile")
