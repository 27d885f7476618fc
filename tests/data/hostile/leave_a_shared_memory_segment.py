# a System V segment outlives its process unless removed: it must not outlive the test
import ctypes

libc = ctypes.CDLL(None, use_errno=True)
libc.shmget(0x4F5E7A01, 4096, 0o1000 | 0o600)  # IPC_CREAT
libc.shmget(0, 4096, 0o1000 | 0o600)  # IPC_PRIVATE
raise AssertionError("hostile")
