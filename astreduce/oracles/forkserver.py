"""A fork server: a small interpreter of its own that forks the tests' children.

Forking a process copies its page tables and shares its pages copy-on-write,
and a child then pays for every page it writes (a reference count changed is
a write) and, at its exit, for every page it mapped. astreduce holds the
syntax trees, caches and keys of a reduction, and 300 modules of its own; a
child forked from it costs far more than the candidate's run. The server is
a fresh interpreter (the same one, with this process's ``sys.path`` and
flags) that imports only what a test's child needs: 20 MB against
astreduce's 35 at the start of a reduction, and on stdlib_argparse about a
third fewer pages copied a test. A child it forks is a
:class:`~astreduce.oracles.spare.Spare` as one forked by astreduce would
be, given its pipes over a Unix socket. Where no interpreter can be
started (``sys.executable`` unknown, astreduce not importable by it) the
server is a fork of astreduce, as before.

A candidate's imports are the other cost of a child: a program that imports
``asyncio`` and ``decimal`` pays 40 ms for them in every test. The server
imports them once, before it forks (:func:`preload`): the imports a plain
run of the original makes before any of its own code (the leading import
statements), and any other the original makes of a module astreduce itself
has loaded. Only modules found outside the original's folder (the standard
library, installed packages) are imported there, never a file beside the
input: a candidate's own code runs only in its confined child.

The server leaves when its socket closes (astreduce ended) or astreduce dies,
even by ``kill -9`` (it takes the parent-death signal as a SIGTERM); it then
kills the children it forked that nobody asked about and removes their
folders: a child may confine itself before it waits for its test, and can
then no longer remove its own folder. It ignores the terminal's Ctrl-C,
which astreduce handles. A server that died (a candidate run without
confinement may kill it) is replaced by the next request.
"""

from __future__ import annotations

import gc
import importlib
import importlib.util
import marshal
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from astreduce.oracles.confine import die_with_parent
from astreduce.oracles.sandbox import drop_idle_workdirs, remove_workdir, write_all

__all__ = ["ForkServer", "forget_server", "fork_server", "preload", "running_server"]

#: What the server runs in a child it forks: (command fd, report fd, folder, the request's arguments); never returns.
ChildMain = Callable[[int, int, str, tuple[Any, ...]], None]
#: What the server does once, when it starts, so that no child it forks does it again.
Prepare = Callable[[], None]

#: How a fresh server starts: ``sys.path`` as astreduce's (the arguments after the first four) before any
#: import (``-c`` puts the working folder first, and a ``json.py`` of the user's there must not be imported),
#: then the loop with the named functions.
_BOOT = (
    "import sys; sys.path[:] = sys.argv[5:]; "
    "from astreduce.oracles.forkserver import serve_descriptor; "
    "serve_descriptor(int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]))"
)


class Reply:
    """The answer to a request, read from the socket when it is wanted (see :meth:`ForkServer.answer`)."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value: int | None = None


class ForkServer:
    """The server process and its socket (SOCK_SEQPACKET: one message a request, one a reply, in order)."""

    def __init__(self, child_main: str, prepare: str = "", fresh: bool = True) -> None:
        """Start the server: a fresh interpreter (``fresh``), or a fork of this process. ``child_main`` and
        ``prepare`` name functions (``module:function``) of the :data:`ChildMain` and :data:`Prepare` kinds."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.owner = os.getpid()
        self.fresh = fresh
        self._process: subprocess.Popen[bytes] | None = None
        if fresh:
            self._process = subprocess.Popen(
                [sys.executable, *subprocess._args_from_interpreter_flags(), "-c", _BOOT,  # type: ignore[attr-defined]  # what multiprocessing uses too
                 str(theirs.fileno()), child_main, prepare, str(self.owner), *sys.path],
                pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # nothing of its own to print; a server that cannot start says so by closing its socket
            self.pid = self._process.pid
        else:
            self.pid = os.fork()
            if self.pid == 0:  # the server: never returns, whatever happens (astreduce's frames are below)
                try:
                    ours.close()
                    _serve(theirs, _named(child_main), _named(prepare) if prepare else None, self.owner)
                finally:
                    os._exit(0)
        theirs.close()
        self._socket = ours
        self._unanswered: deque[Reply] = deque()
        self.answered = False
        """Whether the server has answered a request (one that never did may be unable to start)."""

    def spawn(self, command_fd: int, report_fd: int, workdir: str, args: tuple[Any, ...]) -> Reply:
        """Have the server fork a child that runs ``child_main`` with these descriptors (theirs from
        now on; they may be closed here at once), its folder and ``args`` (marshalled); its pid is the reply. The request does not wait for
        the fork: a spare is forked while the test before it runs, and its pid is read when its test starts.

        Raises OSError when the server is gone.
        """
        request = marshal.dumps(("spawn", workdir, args))
        return self._send(lambda: socket.send_fds(self._socket, [request], [command_fd, report_fd]))

    def preload(self, names: tuple[str, ...], search_path: str) -> int:
        """Have the server import ``names`` (see :func:`preload`); how many it imported, -1 when the
        imports started a Python thread (a fork would leave it behind: this server must not fork any more)."""
        request = marshal.dumps(("preload", names, search_path))
        return self.answer(self._send(lambda: self._socket.sendall(request)))

    def remember(self, function: str, data: object) -> None:
        """Have the server call ``function`` (``module:function``) with ``data`` (marshalled), once, so that
        every child it forks from now on finds what it keeps (a tree's compiled code). The data goes
        through a pipe of its own: it may be larger than a message. Raises OSError when the server is gone."""
        blob = marshal.dumps(data)  # type: ignore[arg-type]  # code objects, str and their containers
        read_end, write_end = os.pipe()
        try:
            request = marshal.dumps(("remember", function))
            self._send(lambda: socket.send_fds(self._socket, [request], [read_end]))
        finally:
            os.close(read_end)
        try:
            write_all(write_end, blob)
        finally:
            os.close(write_end)

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
                self.answered = True
        return reply.value

    def close(self) -> None:
        """End the server (its children that wait for a test leave with their pipes)."""
        self._socket.close()
        if self._process is not None:
            self._process.wait()
            return
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


def serve_descriptor(fd: int, child_main: str, prepare: str, owner: int) -> None:
    """A fresh server's start (:data:`_BOOT`): serve on the socket ``fd`` for astreduce's process ``owner``."""
    try:
        _serve(socket.socket(fileno=fd), _named(child_main), _named(prepare) if prepare else None, owner)
    finally:
        os._exit(0)


def _named(name: str) -> Callable[..., Any]:
    module, _, function = name.partition(":")
    found: Callable[..., Any] = getattr(importlib.import_module(module), function)
    return found


def _serve(connection: socket.socket, child_main: ChildMain, prepare: Prepare | None, owner: int) -> None:
    """The server's loop: fork on request, collect the children's exits, answer for them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the terminal's Ctrl-C is astreduce's to handle
    signal.signal(signal.SIGTERM, _leave)
    die_with_parent(signal.SIGTERM)
    if os.getppid() != owner:  # astreduce died before the line above
        _leave()
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
            elif request[0] == "preload":
                reply = _preload(request[1], request[2])
            elif request[0] == "remember":
                reply = _remember(request[1], fds[0])
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


def _preload(names: tuple[str, ...], search_path: str) -> int:
    """In the server: import ``names`` for every child to find imported. A module found in the
    candidate's folder (``search_path``, first on its ``sys.path``) is left to the child; one whose import
    fails is forgotten, so that the child meets the failure itself. Printing goes nowhere. Returns how many
    were imported, -1 when a Python thread was started: a fork keeps only its caller, and the thread may
    hold a lock its child then waits for forever. (A library's own native threads, OpenBLAS's under
    numpy, are no such thread: such libraries reset their pools in a forked child, as every program
    forking after ``import numpy`` relies on.)"""
    saved_path = sys.path[0] if sys.path else None
    sys.path[0:1] = [search_path or os.devnull]  # what the child's path will find first
    held = [os.dup(1), os.dup(2)]
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    imported = 0
    try:
        for name in names:
            if name in sys.modules or not _outside(name, search_path):
                continue
            before = set(sys.modules)
            try:
                importlib.import_module(name)
                imported += 1
            except BaseException:  # the child's own import will fail, and say how
                for added in set(sys.modules) - before:
                    del sys.modules[added]
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os.dup2(held[0], 1)
        os.dup2(held[1], 2)
        for fd in (*held, null):
            os.close(fd)
        if saved_path is not None:
            sys.path[0] = saved_path
    gc.freeze()  # out of the children's collections, as the rest of the server
    return -1 if threading.active_count() > 1 else imported


def _remember(function: str, fd: int) -> int:
    """In the server: read the data astreduce writes into the pipe ``fd`` and hand it to ``function``."""
    chunks = []
    try:
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(fd)
    try:
        _named(function)(marshal.loads(b"".join(chunks)))
    except Exception:  # a child then does without it (a tree's file compiled from its source)
        return 0
    gc.freeze()
    return 1


def _outside(name: str, search_path: str) -> bool:
    """Whether module ``name``'s package is found, and not in the candidate's folder."""
    try:
        spec = importlib.util.find_spec(name.partition(".")[0])
    except (ImportError, ValueError):
        return False
    if spec is None:
        return False
    places = [spec.origin] if spec.origin and spec.origin not in ("built-in", "frozen") else []
    places += list(spec.submodule_search_locations or [])
    folder = os.path.realpath(search_path) if search_path else None
    return folder is None or not any(os.path.realpath(place).startswith(folder + os.sep) for place in places)


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
#: Whether a fresh server may be started (False once one died before it answered anything).
_fresh_works = True
#: What :func:`preload` was asked, to ask again of a server that replaces one (module names, the candidate's folder).
_preloads: dict[tuple[tuple[str, ...], str], None] = {}
#: The preloads the current server has made.
_preloaded: dict[tuple[tuple[str, ...], str], None] = {}


def fork_server(child_main: str, prepare: str = "") -> ForkServer:
    """This process's fork server, started on first use (and again if it died or this is a fork);
    ``prepare`` runs in it once, before it forks anything, and the modules :func:`preload` was asked for
    are imported then."""
    global _server
    if _server is None or _server.owner != os.getpid():
        _preloaded.clear()
        fresh = _fresh_works and bool(sys.executable)
        try:
            _server = ForkServer(child_main, prepare, fresh=fresh)
        except OSError:
            if not fresh:
                raise
            _server = ForkServer(child_main, prepare, fresh=False)
    for request in _preloads:
        if request not in _preloaded:
            _preloaded[request] = None
            if _server.preload(*request) < 0:  # a thread came with them: a server without them
                _preloads.clear()
                forget_server()
                return fork_server(child_main, prepare)
    return _server



def preload(names: tuple[str, ...], search_path: str = "") -> None:
    """Have the fork server import ``names`` before it forks the next children (see the module docstring):
    the server started next, or the running one at its next request."""
    if names:
        _preloads[(tuple(names), search_path)] = None


def running_server() -> ForkServer | None:
    """This process's fork server, if it has started one."""
    return _server if _server is not None and _server.owner == os.getpid() else None


def forget_server() -> None:
    """Drop a server that failed a request: the next :func:`fork_server` starts another (a fork of this
    process, when a fresh one died before it answered anything: it could not start)."""
    global _server, _fresh_works
    if _server is not None and _server.owner == os.getpid():
        if _server.fresh and not _server.answered:
            _fresh_works = False
        drop_idle_workdirs()
        try:
            _server.close()
        except OSError:
            pass
    _server = None
