"""Confinement of a test's process: it may write only in its own folder, and not reach the network.

Every candidate runs confined (:meth:`astreduce.oracles.sandbox.Limits.confine_to`
calls :func:`confine` in the test's process before it runs anything). Two
layers, each applied where the kernel allows it, neither needing privileges:

* **Landlock** (Linux 5.13 and later) lets an unprivileged process restrict
  itself and every process it starts, for good. The process may read and
  execute whatever the user can; it may write, create, rename, link,
  truncate and delete only beneath the folders it is given (its test's
  folder, ``--allow-write`` paths) and ``/dev/null``; it may not bind or
  connect TCP sockets (ABI 4, Linux 6.7), unless allowed; it may not send
  signals to processes outside its own test, nor connect to abstract Unix
  sockets outside it (ABI 6, Linux 6.12).
* **A read-only view of the rest** (a user and mount namespace, where
  unprivileged user namespaces are allowed): every mount is read-only but
  the test's folder and the allowed paths. It stops what Landlock does not
  see: changing a file's mode, owner, times or extended attributes.

What is not confined: reads (a candidate may read any file the user can),
UDP, and Unix sockets named by a path. :func:`abi` says what the kernel
can do; a kernel without Landlock confines nothing, and astreduce warns.

The module reaches the kernel through ``ctypes`` and the system call
numbers, which are the same on every Linux architecture (the generic
table). Standard library only, and no annotations, rather than a PyPI
wrapper (``landlockpy`` is a good one): the warm pytest
(``pytest_node/_zygote.py``) and the worker of another interpreter
(``_worker_main.py``) load this file by its path under interpreters
astreduce does not install into (the project's virtual environment,
Python 3.6).
"""

import ctypes
import os
import sys

_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH, _RULE_NET_PORT = 1, 2
_PR_SET_NO_NEW_PRIVS = 38

# file-system rights (ABI 1, then REFER in 2, TRUNCATE in 3, IOCTL_DEV in 5)
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
# network rights (ABI 4) and scopes (ABI 6)
BIND_TCP, CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1

#: Rights on a file (not a folder): what a rule for ``/dev/null`` or a single file may grant.
FILE_RIGHTS = WRITE_FILE | TRUNCATE | IOCTL_DEV


def _writes(abi_version):
    """Every right that changes the file system, as far as the kernel's ABI knows them."""
    rights = WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO
    rights |= MAKE_BLOCK | MAKE_SYM
    if abi_version >= 2:
        rights |= REFER
    if abi_version >= 3:
        rights |= TRUNCATE
    if abi_version >= 5:
        rights |= IOCTL_DEV
    return rights


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class _NetPort(ctypes.Structure):
    _fields_ = [("allowed_access", ctypes.c_uint64), ("port", ctypes.c_uint64)]


def _libc():
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        return libc
    except (OSError, AttributeError):
        return None


#: Loaded once: a forked child inherits it instead of loading it for each test.
_LIBC = _libc() if sys.platform.startswith("linux") else None
_ABI = None
_PR_SET_PDEATHSIG = 1


def die_with_parent(signum=None):
    # type: (int | None) -> None
    """Ask Linux to SIGKILL the calling process (or send it ``signum``) when its parent dies (``kill -9
    astreduce``): without it a candidate that sleeps would outlive a killed reducer. Every process a test
    runs in calls it, the standalone scripts too (they load this file by path)."""
    import signal

    try:
        if _LIBC is not None:
            _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL if signum is None else signum)
    except AttributeError:  # not Linux: the process group kill on timeout remains
        pass


def abi():
    """The kernel's Landlock ABI version: 0 when there is no Landlock (not Linux, too old, switched off)."""
    global _ABI
    if _ABI is None:
        _ABI = 0
        if _LIBC is not None:
            version = _LIBC.syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
            _ABI = max(0, int(version))
    return _ABI


class LandlockError(OSError):
    """The kernel refused a rule set (a folder to allow that cannot be opened, say)."""


def restrict(writable=(), files=(), network=False):
    """Put the calling thread, and every process it starts from now on, under the rules above.

    Args:
        writable: folders beneath which writing is allowed (they must exist).
        files: single files that may be written (``/dev/null``).
        network: allow TCP bind and connect.

    Returns:
        The ABI applied (0: nothing was confined; the kernel has no Landlock).

    Raises:
        LandlockError: a path cannot be opened, or the kernel refused a call.
    """
    version = abi()
    if version == 0:
        return 0
    writes = _writes(version)
    attr = _RulesetAttr(writes, 0, 0)
    size = ctypes.sizeof(ctypes.c_uint64) * 1
    if version >= 4 and not network:
        attr.handled_access_net = BIND_TCP | CONNECT_TCP
        size = ctypes.sizeof(ctypes.c_uint64) * 2
    if version >= 6:
        attr.scoped = SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX_SOCKET
        size = ctypes.sizeof(_RulesetAttr)
    ruleset = _LIBC.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise LandlockError(ctypes.get_errno(), "landlock_create_ruleset: " + os.strerror(ctypes.get_errno()))
    try:
        for path in writable:
            _allow(ruleset, path, writes)
        for path in files:
            _allow(ruleset, path, writes & FILE_RIGHTS)
        if _LIBC.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise LandlockError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS): " + os.strerror(ctypes.get_errno()))
        if _LIBC.syscall(_SYS_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            raise LandlockError(ctypes.get_errno(), "landlock_restrict_self: " + os.strerror(ctypes.get_errno()))
    finally:
        os.close(ruleset)
    return version


def _allow(ruleset, path, rights):
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError as error:
        raise LandlockError(error.errno, "cannot allow writing to %s: %s" % (path, error.strerror)) from None
    try:
        rule = _PathBeneath(rights, fd)
        if _LIBC.syscall(_SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH), ctypes.byref(rule), ctypes.c_uint32(0)) != 0:
            number = ctypes.get_errno()
            if number == 22 and rights & ~FILE_RIGHTS and not os.path.isdir(path):  # a file: only file rights
                rule = _PathBeneath(rights & FILE_RIGHTS, fd)
                if _LIBC.syscall(_SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH), ctypes.byref(rule), ctypes.c_uint32(0)) == 0:
                    return
                number = ctypes.get_errno()
            raise LandlockError(number, "landlock_add_rule %s: %s" % (path, os.strerror(number)))
    finally:
        os.close(fd)


# --- a read-only view of the rest: a user and mount namespace ---------------------------

_CLONE_NEWNS, _CLONE_NEWUSER = 0x00020000, 0x10000000
_MS_REC, _MS_BIND, _MS_PRIVATE = 0x4000, 0x1000, 0x40000
_SYS_MOUNT_SETATTR, _AT_FDCWD, _AT_RECURSIVE, _MOUNT_ATTR_RDONLY = 442, -100, 0x8000, 1


class _MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64), ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]


def _check(result, what):
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, what + ": " + os.strerror(number))


def read_only_elsewhere(writable):
    """Make every mount read-only for this process and its children, except the paths in ``writable``.

    Needs a single-threaded process (a forked child) and unprivileged user
    namespaces (Linux 5.12 for ``mount_setattr``). Returns False, changing
    nothing that matters, where they are missing.
    """
    if _LIBC is None:
        return False
    uid, gid = os.getuid(), os.getgid()
    if _LIBC.unshare(_CLONE_NEWUSER | _CLONE_NEWNS) != 0:
        return False
    try:
        for name, text in (("setgroups", "deny"), ("uid_map", "%d %d 1" % (uid, uid)), ("gid_map", "%d %d 1" % (gid, gid))):
            fd = os.open("/proc/self/" + name, os.O_WRONLY)  # not open(): 0.4 ms less in a fresh fork
            try:
                os.write(fd, text.encode("ascii"))
            finally:
                os.close(fd)
        _check(_LIBC.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "mount --make-rprivate /")
        paths = [os.fsencode(p) for p in writable if os.path.exists(p)]
        for path in paths:
            _check(_LIBC.mount(path, path, None, _MS_BIND | _MS_REC, None), "mount --bind")
        read_only = _MountAttr(_MOUNT_ATTR_RDONLY, 0, 0, 0)
        _check(_LIBC.syscall(_SYS_MOUNT_SETATTR, _AT_FDCWD, b"/", _AT_RECURSIVE, ctypes.byref(read_only), ctypes.sizeof(read_only)), "mount_setattr /")
    except OSError:
        return False  # the namespace is the process's own: nothing outside it changed
    writable_again = _MountAttr(0, _MOUNT_ATTR_RDONLY, 0, 0)
    for path in paths:
        # a folder that stayed read-only would break the test, not protect anything: fail loudly
        _check(_LIBC.syscall(_SYS_MOUNT_SETATTR, _AT_FDCWD, path, _AT_RECURSIVE, ctypes.byref(writable_again), ctypes.sizeof(writable_again)), "mount_setattr " + os.fsdecode(path))
    return True


def confine(folder, writable=(), files=(), network=False):
    """Confine the calling process to ``folder`` (see the module docstring), ``TMPDIR`` there.

    Returns:
        The Landlock ABI applied (0: this kernel has no Landlock; then only the read-only view, if any, applies).
    """
    for name in ("TMPDIR", "TEMP", "TMP"):
        os.environ[name] = folder
    import tempfile

    tempfile.tempdir = None  # forget the parent's choice: gettempdir() looks again
    allowed = [folder] + list(writable)
    read_only_elsewhere(allowed + [f for f in files if f != os.devnull])
    return restrict(writable=allowed, files=[os.devnull] + list(files), network=network)
