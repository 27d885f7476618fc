"""The room a candidate runs in: what it may write, whom it may reach, and how its folder goes afterwards.

Every candidate runs confined (:meth:`astreduce.run.sandbox.Limits.confine_to`
calls :func:`confine` in the test's own process before it runs anything);
so does every process that runs code of the user's (the fork server's
preloaded imports, the warm pytest process and its conftests, the value
tracer). The layers, each applied where the kernel allows it, none needing
privileges:

* **Namespaces** (where unprivileged user namespaces are allowed): a user
  and mount namespace in which every mount is read-only but the test's
  folder and the allowed paths, which stops what Landlock does not see
  (changing a file's mode, owner, times or extended attributes); a new IPC
  namespace (System V shared memory, semaphores and message queues, POSIX
  message queues of its own, gone with the test); and, unless the network is
  allowed, a new network namespace: no interface but a loopback that is
  down, so no TCP, MPTCP, UDP or raw packet leaves it, and no abstract Unix
  socket outside it is reachable. The working folder is entered again once
  the folder is writable, so that relative paths write there too.
* **Landlock** (Linux 5.13 and later) lets an unprivileged process restrict
  itself and every process it starts, for good: it may read and execute
  whatever the user can; it may write, create, rename, link, truncate and
  delete only beneath its folder, the allowed paths and ``/dev/null``; it
  may not bind or connect TCP sockets (ABI 4, Linux 6.7) unless allowed; it
  may not signal processes outside its own room, nor connect to abstract
  Unix sockets outside it (ABI 6, Linux 6.12); it may not change mounts.
* **A filter of sockets** (seccomp), unless the network is allowed: no Unix
  socket but a connected pair (``socketpair``; a path names a socket
  outside the room that no namespace encloses), no socket of a family a
  network namespace does not enclose (vsock, Bluetooth, ...), no io_uring
  (it makes sockets past the filter); where no network namespace could be
  made, no UDP, MPTCP or raw socket (TCP is Landlock's, and where Landlock
  cannot confine TCP either, no IP socket at all), and where no IPC
  namespace could be made, no System V IPC.
* **No capabilities**: the process drops those its user namespace gave it,
  and no program it starts gets them back (``no_new_privs``).

A process that runs the user's code and forks the tests' children (a fork
server's *room*, the warm pytest process) confines itself so, to a folder
holding every test's folder, and keeps its namespace's capabilities (under
Landlock they cannot change a mount); each child then narrows its writes to
its own folder with Landlock, and drops them (``confine(..., in_room=True)``).
The children of a room share its network and IPC namespaces: nothing outside
the room reaches them, and what a candidate leaves there (a System V segment)
goes with the room, at the end of the run. (An IPC namespace a test would
cost it 2 ms on Linux 6.18: each registers its own sysctls.)

:func:`confine` returns what held. What stays open: reads (a candidate
may read any file the user can). The module reaches the kernel through
``ctypes``; the system call numbers of the namespaces and Landlock are the
generic table's, the same on every Linux architecture, and the socket
filter knows x86-64 and AArch64 (elsewhere it is left out, and says so).
Standard library only, and no annotations, rather than a PyPI wrapper
(``landlockpy`` is a good one): the warm pytest (``pytest_node/_zygote.py``)
and the worker of another interpreter (``_worker_main.py``) load this file
by its path under interpreters astreduce does not install into (the
project's virtual environment, Python 3.6).

A test's folder is removed afterwards by ``removal.py`` (any depth,
links, folders without permissions), never following a link.
"""

import ctypes
import os
import struct
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


def _no_new_privileges():
    if _LIBC.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise LandlockError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS): " + os.strerror(ctypes.get_errno()))


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
        attr.scoped = SCOPE_SIGNAL | (0 if network else SCOPE_ABSTRACT_UNIX_SOCKET)
        size = ctypes.sizeof(_RulesetAttr)
    ruleset = _LIBC.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        raise LandlockError(ctypes.get_errno(), "landlock_create_ruleset: " + os.strerror(ctypes.get_errno()))
    try:
        for path in writable:
            _allow(ruleset, path, writes)
        for path in files:
            _allow(ruleset, path, writes & FILE_RIGHTS)
        _no_new_privileges()
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


# --- namespaces: a read-only view of the rest, IPC and network of its own ------------------------

_CLONE_NEWNS, _CLONE_NEWUSER, _CLONE_NEWIPC, _CLONE_NEWNET = 0x00020000, 0x10000000, 0x08000000, 0x40000000
_MS_REC, _MS_BIND, _MS_PRIVATE = 0x4000, 0x1000, 0x40000
_SYS_MOUNT_SETATTR, _AT_FDCWD, _AT_RECURSIVE, _MOUNT_ATTR_RDONLY = 442, -100, 0x8000, 1


class _MountAttr(ctypes.Structure):
    _fields_ = [("attr_set", ctypes.c_uint64), ("attr_clr", ctypes.c_uint64), ("propagation", ctypes.c_uint64), ("userns_fd", ctypes.c_uint64)]


def _check(result, what):
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, what + ": " + os.strerror(number))


def _map_ids(uid, gid):
    """Map the user and group to themselves in the new user namespace (the only mapping an unprivileged
    process may write), so that files keep their owner."""
    for name, text in (("setgroups", "deny"), ("uid_map", "%d %d 1" % (uid, uid)), ("gid_map", "%d %d 1" % (gid, gid))):
        fd = os.open("/proc/self/" + name, os.O_WRONLY)  # not open(): 0.4 ms less in a fresh fork
        try:
            os.write(fd, text.encode("ascii"))
        finally:
            os.close(fd)


def _unshare(network):
    """Enter new user, mount and IPC namespaces, and a network one unless ``network``: the namespaces
    entered (a kernel may refuse some: then fewer are tried, the network's first)."""
    uid, gid = os.getuid(), os.getgid()
    wanted = [_CLONE_NEWNS, _CLONE_NEWIPC] + ([] if network else [_CLONE_NEWNET])
    while wanted:
        flags = _CLONE_NEWUSER
        for flag in wanted:
            flags |= flag
        if _LIBC.unshare(flags) == 0:
            _map_ids(uid, gid)
            return set(wanted)
        wanted.pop()  # the network first, then IPC; a mount namespace is the least
    return set()


def read_only_elsewhere(writable, network=True):
    """Enter namespaces of this process's own (see the module docstring), in which every mount is read-only
    except the paths in ``writable``, the first of which must exist; ``network``: stay in the host's
    network namespace. Returns the names of the namespaces entered (``mount``, ``ipc``, ``network``): none
    where the kernel allows none, and then nothing changed.

    Needs a single-threaded process (a forked child) and unprivileged user namespaces (Linux 5.12 for
    ``mount_setattr``).
    """
    if _LIBC is None:
        return set()
    entered = _unshare(network)
    if _CLONE_NEWNS not in entered:
        return set()
    held = {"ipc"} if _CLONE_NEWIPC in entered else set()
    if _CLONE_NEWNET in entered:
        held.add("network")
    try:
        _check(_LIBC.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "mount --make-rprivate /")
        paths = [os.fsencode(p) for p in writable if os.path.exists(p)]
        for path in paths:
            _check(_LIBC.mount(path, path, None, _MS_BIND | _MS_REC, None), "mount --bind")
        read_only = _MountAttr(_MOUNT_ATTR_RDONLY, 0, 0, 0)
        _check(_LIBC.syscall(_SYS_MOUNT_SETATTR, _AT_FDCWD, b"/", _AT_RECURSIVE, ctypes.byref(read_only), ctypes.sizeof(read_only)), "mount_setattr /")
    except OSError:
        return held  # the mount namespace is the process's own: nothing outside it changed
    writable_again = _MountAttr(0, _MOUNT_ATTR_RDONLY, 0, 0)
    for path in paths:
        # a folder that stayed read-only would break the test, not protect anything: fail loudly
        _check(_LIBC.syscall(_SYS_MOUNT_SETATTR, _AT_FDCWD, path, _AT_RECURSIVE, ctypes.byref(writable_again), ctypes.sizeof(writable_again)), "mount_setattr " + os.fsdecode(path))
    try:
        # the working folder was entered before its bind mount: enter it again, through the mount, so that
        # a relative path writes in the folder as an absolute one does
        os.chdir(os.getcwd())
    except OSError:
        pass
    held.add("mount")
    return held


# --- capabilities: none ---------------------------------------------------------------------------

_LINUX_CAPABILITY_VERSION_3 = 0x20080522


def drop_capabilities():
    """Give up every capability (those a new user namespace grants its first process); with ``no_new_privs``
    set, no program started later gets one back. False where the call failed."""
    if _LIBC is None:
        return False
    header = struct.pack("=Ii", _LINUX_CAPABILITY_VERSION_3, 0)
    data = bytes(24)  # two of {effective, permitted, inheritable}, all empty
    return _LIBC.capset(ctypes.c_char_p(header), ctypes.c_char_p(data)) == 0


# --- a filter of sockets (seccomp) -----------------------------------------------------------------

_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER = 22, 2
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_EACCES, _EPERM = 13, 1
_AF_UNIX, _AF_INET, _AF_INET6, _AF_NETLINK = 1, 2, 10, 16
_SOCK_STREAM, _SOCK_DGRAM, _SOCK_SEQPACKET, _SOCK_TYPE_MASK = 1, 2, 5, 0xF
_IPPROTO_TCP = 6

#: Per architecture: its audit number, the numbers of socket, socketpair, io_uring_setup and the System V
#: IPC calls, and those of a compatible 32-bit architecture (which a 64-bit process may call too).
_ARCHITECTURES = {
    "x86_64": {
        "audit": 0xC000003E, "socket": 41, "socketpair": 53, "io_uring_setup": 425, "x32": 0x40000000,
        "ipc": (29, 30, 31, 64, 65, 66, 68, 69, 70, 71, 220, 240),
        "compat": {"audit": 0x40000003, "denied": (102, 359, 360, 425), "ipc": (117, 277, 393, 394, 395, 396, 397, 399, 400, 401, 402, 420)},
    },
    "aarch64": {
        "audit": 0xC00000B7, "socket": 198, "socketpair": 199, "io_uring_setup": 425, "x32": 0,
        "ipc": (180, 186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196),
        "compat": None,
    },
}

_LD, _JEQ, _JSET, _AND, _RET = 0x20, 0x15, 0x45, 0x54, 0x06


class _Program(object):
    """A classic BPF program written with labels: each jump names the label of its true and false branch
    (None: the next instruction); jumps go forward only, as BPF's do."""

    def __init__(self):
        self.code = []
        self.labels = {}

    def label(self, name):
        self.labels[name] = len(self.code)

    def load(self, offset):
        self.code.append((_LD, None, None, offset))

    def mask(self, value):
        self.code.append((_AND, None, None, value))

    def jump(self, value, true=None, false=None):
        self.code.append((_JEQ, true, false, value))

    def ret(self, value):
        self.code.append((_RET, None, None, value))

    def assemble(self):
        out = []
        for index, (code, true, false, k) in enumerate(self.code):
            jt = self.labels[true] - index - 1 if true is not None else 0
            jf = self.labels[false] - index - 1 if false is not None else 0
            if not (0 <= jt < 256 and 0 <= jf < 256):
                raise ValueError("a jump out of reach")
            out.append(struct.pack("=HBBI", code, jt, jf, k & 0xFFFFFFFF))
        return b"".join(out)


_NR, _ARCH, _ARG0, _ARG1, _ARG2 = 0, 4, 16, 24, 32


def socket_filter_program(private_network, private_ipc, tcp_confined=True, machine=None):
    """The seccomp program of the socket filter (see the module docstring) for this machine's architecture,
    as bytes; None where it is not known. ``private_network``: the process has a network namespace of its
    own (then IP sockets may be made: nothing they could reach is outside); ``private_ipc``: an IPC one;
    ``tcp_confined``: Landlock confines TCP (ABI 4), so that without a network namespace a TCP socket may be
    made (and not a UDP, MPTCP or raw one); without either, no IP socket may be made at all."""
    table = _ARCHITECTURES.get(machine or os.uname().machine)
    if table is None:
        return None
    denied, refused = _RET_ERRNO | _EACCES, _RET_ERRNO | _EPERM
    program = _Program()
    program.load(_ARCH)
    program.jump(table["audit"], false="foreign")
    program.load(_NR)
    if table["x32"]:
        program.mask(~table["x32"] & 0xFFFFFFFF)  # x32's calls are x86-64's, with this bit set
    program.jump(table["socket"], true="socket")
    program.jump(table["socketpair"], true="socketpair")
    program.jump(table["io_uring_setup"], true="refuse")
    if not private_ipc:
        for number in table["ipc"]:
            program.jump(number, true="deny")
    program.label("allow")
    program.ret(_RET_ALLOW)
    program.label("deny")
    program.ret(denied)
    program.label("refuse")
    program.ret(refused)
    program.label("socket")
    program.load(_ARG0)
    program.jump(_AF_INET, true="ip")
    program.jump(_AF_INET6, true="ip")
    program.jump(_AF_NETLINK, true="allow_socket", false="deny_socket")
    program.label("ip")
    if not private_network and not tcp_confined:  # nothing confines TCP either: no IP socket at all
        program.ret(denied)
    elif not private_network:  # TCP only (Landlock's to confine): no UDP, MPTCP, SCTP or raw socket
        program.load(_ARG1)
        program.mask(_SOCK_TYPE_MASK)
        program.jump(_SOCK_STREAM, false="deny_socket")
        program.load(_ARG2)
        program.jump(0, true="allow_socket")
        program.jump(_IPPROTO_TCP, false="deny_socket")
    program.label("allow_socket")
    program.ret(_RET_ALLOW)
    program.label("deny_socket")
    program.ret(denied)
    program.label("socketpair")  # a connected pair of Unix sockets reaches nothing else; a datagram one could
    program.load(_ARG0)
    program.jump(_AF_UNIX, false="deny_pair")
    program.load(_ARG1)
    program.mask(_SOCK_TYPE_MASK)
    program.jump(_SOCK_STREAM, true="allow_pair")
    program.jump(_SOCK_SEQPACKET, true="allow_pair", false="deny_pair")
    program.label("allow_pair")
    program.ret(_RET_ALLOW)
    program.label("deny_pair")
    program.ret(denied)
    program.label("foreign")
    compat = table["compat"]
    if compat is None:  # another architecture's calls, which this table does not know: none
        program.ret(refused)
    else:
        program.jump(compat["audit"], false="unknown")
        program.load(_NR)
        numbers = list(compat["denied"]) + ([] if private_ipc else list(compat["ipc"]))
        for number in numbers:
            program.jump(number, true="deny_foreign")
        program.ret(_RET_ALLOW)
        program.label("deny_foreign")
        program.ret(denied)
        program.label("unknown")
        program.ret(refused)
    return program.assemble()


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def filter_sockets(private_network, private_ipc, tcp_confined=True):
    """Install the socket filter (see :func:`socket_filter_program`) on this process and all it starts;
    False where this architecture's numbers are not known or the kernel refused it."""
    if _LIBC is None:
        return False
    code = socket_filter_program(private_network, private_ipc, tcp_confined)
    if code is None:
        return False
    buffer = ctypes.create_string_buffer(code, len(code))
    program = _SockFprog(len(code) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    _no_new_privileges()
    return _LIBC.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0) == 0


# --- the room ----------------------------------------------------------------------------------------

#: What :func:`confine` reports, in this order: the Landlock ABI applied, then each other layer.
LAYERS = ("landlock", "read_only_view", "ipc_namespace", "network_namespace", "socket_filter", "no_capabilities")


def confine(folder, writable=(), files=(), network=False, in_room=False, room=False):
    """Confine the calling process to ``folder`` (see the module docstring), ``TMPDIR`` there.

    Args:
        folder: the folder it may write (its working folder, usually).
        writable: more folders or files it may write (``--allow-write``).
        files: single files it may write.
        network: leave the host's network open (``--allow-network``).
        in_room: the process is a child of a *room* (a fork server's room, a warm pytest process) confined
            already, to a folder holding ``folder``: it keeps the room's read-only view, network and IPC
            namespaces and socket filter, Landlock narrows its writes to ``folder``, and it drops the
            capabilities the room kept.
        room: the process is a room: where Landlock held (it forbids changing mounts), it keeps the
            capabilities of its user namespace for its children (their own namespaces, should they need
            them; each drops them).

    Returns:
        What held, by :data:`LAYERS`: ``landlock`` is the ABI applied (0: none), the others are booleans
        (in a room's child: what the child added, and the room's network namespace).
    """
    for name in ("TMPDIR", "TEMP", "TMP"):
        os.environ[name] = folder
    import tempfile

    tempfile.tempdir = None  # forget the parent's choice: gettempdir() looks again
    allowed = [folder] + list(writable)
    if in_room:  # the room's namespaces and filter stay; an IPC namespace a test would cost 2 ms (its sysctls)
        report = {
            "landlock": restrict(writable=allowed, files=[os.devnull] + list(files), network=network),
            "read_only_view": False, "ipc_namespace": False, "network_namespace": not network,
            "socket_filter": False, "no_capabilities": False,
        }
        if _LIBC is not None:
            _no_new_privileges()
            report["no_capabilities"] = drop_capabilities()
        return report
    held = read_only_elsewhere(allowed + [f for f in files if f != os.devnull], network=network)
    private_network = not network and "network" in held
    landlock = restrict(writable=allowed, files=[os.devnull] + list(files), network=network)
    report = {
        "landlock": landlock,
        "read_only_view": "mount" in held,
        "ipc_namespace": "ipc" in held,
        "network_namespace": private_network,
        "socket_filter": False if network else filter_sockets(private_network, "ipc" in held, landlock >= 4),
        "no_capabilities": False,
    }
    if _LIBC is not None:
        _no_new_privileges()
        if not (room and report["landlock"]):
            report["no_capabilities"] = drop_capabilities()
    return report


def probe(folder, writable=(), network=False):
    """What :func:`confine` would hold here, tried in a forked child (which then exits): the report's
    ``confinement``. Every layer False, and Landlock 0, where the child could not report."""
    import json

    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        try:
            os.close(read_end)
            os.chdir(folder)
            data = json.dumps(confine(folder, writable, (), network)).encode("ascii")
            os.write(write_end, data)
        finally:
            os._exit(0)
    os.close(write_end)
    chunks = []
    try:
        while True:
            chunk = os.read(read_end, 4096)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_end)
        os.waitpid(pid, 0)
    try:
        found = json.loads(b"".join(chunks).decode("ascii"))
    except ValueError:
        found = {}
    return dict((name, found.get(name, 0 if name == "landlock" else False)) for name in LAYERS)
