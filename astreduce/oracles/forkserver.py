"""A fork server: a small process, forked from astreduce before it grows, that forks the tests' children.

Forking a process copies its page tables and shares its pages copy-on-write.
astreduce holds the syntax trees, caches and keys of a reduction, and after
every fork each page it then writes (a reference count changed is a write)
is copied for it: on stdlib_argparse at ``-j 1``, about 1,000 page faults a
test, a third of astreduce's own time, and the fork itself 1.3 ms more. The
server is forked once, while astreduce is still small; it touches nothing
after that, so forking it costs little and copies nothing of astreduce's
later work. A child it forks is a :class:`~astreduce.oracles.spare.Spare`
as one forked by astreduce would be (the same modules, the same code), given
its pipes over a Unix socket.

The server leaves when its socket closes (astreduce ended) or astreduce dies,
even by ``kill -9`` (it takes the parent-death signal as a SIGTERM); it then
kills the children it forked that nobody asked about and removes their
folders: a child may confine itself before it waits for its test, and can
then no longer remove its own folder. It ignores the terminal's Ctrl-C,
which astreduce handles. A server that died (a candidate run without
confinement may kill it) is replaced by the next request.
"""

from __future__ import annotations

import marshal
import os
import signal
import socket
import stat
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from astreduce.oracles.confine import die_with_parent
from astreduce.oracles.sandbox import remove_workdir

__all__ = ["ForkServer", "forget_server", "fork_server", "running_server"]

#: What the server runs in a child it forks: (command fd, report fd, folder, the request's arguments); never returns.
ChildMain = Callable[[int, int, str, tuple[Any, ...]], None]
#: What the server does once, when it starts, so that no child it forks does it again.
Prepare = Callable[[], None]


class Reply:
    """The answer to a request, read from the socket when it is wanted (see :meth:`ForkServer.answer`)."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value: int | None = None


class ForkServer:
    """The server process and its socket (SOCK_SEQPACKET: one message a request, one a reply, in order)."""

    def __init__(self, child_main: ChildMain, prepare: Prepare | None = None) -> None:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.pid = os.fork()
        if self.pid == 0:  # the server: never returns, whatever happens (astreduce's frames are below)
            try:
                ours.close()
                _serve(theirs, child_main, prepare)
            finally:
                os._exit(0)
        theirs.close()
        self._socket = ours
        self.owner = os.getpid()
        self._unanswered: deque[Reply] = deque()

    def spawn(self, command_fd: int, report_fd: int, workdir: str, args: tuple[Any, ...]) -> Reply:
        """Have the server fork a child that runs ``child_main`` with these descriptors (theirs from
        now on; they may be closed here at once), its folder and ``args`` (marshalled); its pid is the reply. The request does not wait for
        the fork: a spare is forked while the test before it runs, and its pid is read when its test starts.

        Raises OSError when the server is gone.
        """
        request = marshal.dumps(("spawn", workdir, args))
        return self._send(lambda: socket.send_fds(self._socket, [request], [command_fd, report_fd]))

    def status(self, pid: int) -> int:
        """The wait status of a child the server forked, once it has ended (0 if it is not known)."""
        request = marshal.dumps(("status", pid))
        return self.answer(self._send(lambda: self._socket.sendall(request)))

    def _send(self, send: Callable[[], object]) -> Reply:
        reply = Reply()
        with _ctrl_c_held():
            send()
            self._unanswered.append(reply)
        return reply

    def answer(self, reply: Reply) -> int:
        """The value of ``reply``, reading the replies before it in order. Raises OSError when the server is gone."""
        while reply.value is None:
            with _ctrl_c_held():  # a reply read is always given to its request
                data = self._socket.recv(64)
                if not data:
                    raise ConnectionError("the fork server is gone")
                self._unanswered.popleft().value = int(marshal.loads(data))
        return reply.value

    def close(self) -> None:
        """End the server (its children that wait for a test leave with their pipes)."""
        self._socket.close()
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


@contextmanager
def _ctrl_c_held() -> Iterator[None]:
    """Ctrl-C (and a termination) held back until the block ends: a request half sent or a reply
    read and not given to its request would answer the next request."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _serve(connection: socket.socket, child_main: ChildMain, prepare: Prepare | None) -> None:
    """The server's loop: fork on request, collect the children's exits, answer for them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the terminal's Ctrl-C is astreduce's to handle
    signal.signal(signal.SIGTERM, _leave)
    die_with_parent(signal.SIGTERM)
    _close_pipes(keep=connection.fileno())
    if prepare is not None:
        prepare()
    ended: dict[int, int] = {}  # pid -> wait status, of children reaped before anyone asked
    live = _live
    try:
        while True:
            message, fds, _, _ = socket.recv_fds(connection, 1 << 16, 2)
            if not message:
                break
            request = marshal.loads(message)
            if request[0] == "spawn":
                reply = _spawn(connection, child_main, fds, request[1], request[2])
                live[reply] = request[1]
            else:
                for fd in fds:
                    os.close(fd)
                reply = _status(request[1], ended)
                live.pop(request[1], None)
            _collect(ended, live)
            connection.sendall(marshal.dumps(reply))
    except BaseException:  # astreduce went away mid-request: nothing to report to
        pass
    _leave()


#: In the server: pid -> folder, of the children nobody asked about yet.
_live: dict[int, str] = {}


def _leave(*signal_args: object) -> None:
    """The server's end, on its socket's end or a SIGTERM (astreduce died): clean up and exit.
    Never raises: an exception would unwind into the astreduce frames the server was forked from."""
    try:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        _clean_up(_live)
    finally:
        os._exit(0)


def _clean_up(live: dict[int, str]) -> None:
    """Kill the children still running or waiting (their tests are nobody's now) and remove their folders."""
    for pid in list(live):
        for kill in (os.killpg, os.kill):  # its group, and itself should it have left the group
            try:
                kill(pid, signal.SIGKILL)
            except OSError:
                pass
    for pid, workdir in live.items():
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
        remove_workdir(workdir)


def _close_pipes(keep: int) -> None:
    """Close the pipes astreduce had open when it forked the server: a test's report pipe held open
    here would never end. (Files stay: a test's output may go to one, as under pytest's capture.)"""
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd > 2 and fd != keep:
            try:
                if stat.S_ISFIFO(os.fstat(fd).st_mode):
                    os.close(fd)
            except OSError:  # the listing's own descriptor, closed already
                pass


def _spawn(connection: socket.socket, child_main: ChildMain, fds: list[int], workdir: str, args: tuple[Any, ...]) -> int:
    pid = os.fork()
    if pid == 0:  # the child: what astreduce's own fork would run
        connection.close()
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        child_main(fds[0], fds[1], workdir, args)
        os._exit(0)  # pragma: no cover - child_main never returns
    for fd in fds:
        os.close(fd)
    try:
        os.setpgid(pid, pid)  # also here: a kill of its group must not find no group
    except OSError:
        pass
    return pid


def _status(pid: int, ended: dict[int, int]) -> int:
    if pid in ended:
        return ended.pop(pid)
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return 0


def _collect(ended: dict[int, int], live: dict[int, str]) -> None:
    """Reap the children that ended (killed tests nobody asks about); keep their statuses a while."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        live.pop(pid, None)  # its folder is astreduce's again
        if len(ended) >= 4096:
            ended.pop(next(iter(ended)))
        ended[pid] = status


_server: ForkServer | None = None


def fork_server(child_main: ChildMain, prepare: Prepare | None = None) -> ForkServer:
    """This process's fork server, started on first use (and again if it died or this is a fork);
    ``prepare`` runs in it once, before it forks anything."""
    global _server
    if _server is None or _server.owner != os.getpid():
        _server = ForkServer(child_main, prepare)
    return _server


def running_server() -> ForkServer | None:
    """This process's fork server, if it has started one."""
    return _server if _server is not None and _server.owner == os.getpid() else None


def forget_server() -> None:
    """Drop a server that failed a request: the next :func:`fork_server` starts another."""
    global _server
    if _server is not None and _server.owner == os.getpid():
        try:
            _server.close()
        except OSError:
            pass
    _server = None
