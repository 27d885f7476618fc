# attaches to its parent (the process that forked it) with ptrace, as a debugger would
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
for pid in (os.getppid(), int(os.environ["HOSTILE_VICTIM"])):
    if libc.ptrace(16, pid, None, None) == 0:  # PTRACE_ATTACH
        libc.ptrace(17, pid, None, None)  # PTRACE_DETACH
        os.kill(pid, 9)
raise AssertionError("hostile")
