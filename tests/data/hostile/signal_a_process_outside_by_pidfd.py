import os
import signal

try:
    handle = os.pidfd_open(int(os.environ["HOSTILE_VICTIM"]))
    signal.pidfd_send_signal(handle, signal.SIGUSR1)
except (OSError, AttributeError):
    pass
raise AssertionError("hostile")
