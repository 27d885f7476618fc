# a user namespace of its own, then the read-only mounts made writable again, then a chmod outside
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)


class MountAttr(ctypes.Structure):
    _fields_ = [("set", ctypes.c_uint64), ("clear", ctypes.c_uint64), ("propagation", ctypes.c_uint64), ("userns", ctypes.c_uint64)]


writable = MountAttr(0, 1, 0, 0)
for flags in (0, 0x10000000 | 0x00020000):  # as it is, then in new user and mount namespaces
    if flags:
        libc.unshare(flags)
    libc.syscall(442, -100, b"/", 0x8000, ctypes.byref(writable), ctypes.sizeof(writable))
    try:
        os.chmod(os.path.join(os.environ["HOSTILE_OUTSIDE"], "keep.txt"), 0o777)
    except OSError:
        pass
raise AssertionError("hostile")
