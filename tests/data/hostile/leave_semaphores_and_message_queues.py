import ctypes

libc = ctypes.CDLL(None, use_errno=True)
libc.semget(0x4F5E7A02, 1, 0o1000 | 0o600)
libc.msgget(0x4F5E7A03, 0o1000 | 0o600)
raise AssertionError("hostile")
