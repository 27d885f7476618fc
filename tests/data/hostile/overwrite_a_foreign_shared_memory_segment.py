# attaches another process's System V shared-memory segment (mode 0600, the same user) and overwrites it
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
segment = libc.shmget(int(os.environ["HOSTILE_SHM_KEY"]), 0, 0)
if segment >= 0:
    address = libc.shmat(segment, None, 0)
    if address not in (None, ctypes.c_void_p(-1).value):
        ctypes.memmove(address, b"overwritten by a candidate", 26)
raise AssertionError("hostile")
