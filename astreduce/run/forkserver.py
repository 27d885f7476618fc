"""A fork server: a small interpreter of its own that forks the tests' children, in confined rooms.

Forking a process copies its page tables and shares its pages copy-on-write,
and a child then pays for every page it writes (a reference count changed is
a write) and, at its exit, for every page it mapped. astreduce holds the
syntax trees, caches and keys of a reduction, and 300 modules of its own; a
child forked from it costs far more than the candidate's run. The server is
a fresh interpreter (the same one, with this process's ``sys.path`` and
flags) that imports only what a test's child needs: 20 MB against
astreduce's 35 at the start of a reduction, and on stdlib_argparse about a
third fewer pages copied a test. Where no interpreter can be started
(``sys.executable`` unknown, astreduce not importable by it) the server is a
fork of astreduce, as before.

Two kinds of process share the work, because one of them runs the user's
code and the other must not:

* **The server** never runs code of the user's. It takes astreduce's
  requests, moves each test's child into its pids cgroup (:mod:`~astreduce.
  oracles.sandbox`: a confined process can write no ``cgroup.procs``), kills
  and removes what is left when astreduce ends, and kills any process that
  escaped a test (it is their subreaper: a candidate's grandchild that left
  its process group comes to it when its parent dies).
* **A room** (a zygote, one per confinement: ``--allow-write``,
  ``--allow-network``, ``--no-confine``) is forked by the server and confines
  itself at once as a candidate is confined, to the room folder beneath which
  every test folder is made (:func:`~astreduce.run.sandbox.room_folder`):
  its network and IPC namespaces, its read-only view, Landlock, the socket
  filter, no capabilities. Then it imports what every test would
  (:func:`preload`) and forks the tests' children; a child confines itself
  further, to its own folder, before it waits for its test
  (:class:`~astreduce.run.spare.Spare`), and stays in the room's network
  and IPC namespaces (made once: a network namespace a test cost 0.5 ms, an
  IPC namespace 2 ms on Linux 6.18).

A candidate's imports are the other cost of a child: a program that imports
``asyncio`` and ``decimal`` pays 40 ms for them in every test. A room imports
them once, before it forks: the imports a plain run of the original makes
before any of its own code (the leading import statements), and any other
the original makes of a module astreduce itself has loaded. Only modules
found outside the original's folder are imported there, never a file beside
the input; what they run at their import runs confined, in the room.

The server leaves when its socket closes (astreduce ended) or astreduce dies,
even by ``kill -9`` (it takes the parent-death signal as a SIGTERM); it then
kills its rooms and every child they forked, and removes the folders and
cgroups of those nobody asked about. It ignores the terminal's Ctrl-C,
which astreduce handles. A server that died (or whose room died) is replaced
by the next request.
"""

from __future__ import annotations

import atexit
import marshal
import os
import select
import signal
import socket
import subprocess
import sys
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from astreduce.run.confine import die_with_parent
from astreduce.run.sandbox import drop_idle_workdirs, remove_workdir, room_folder, write_all
from astreduce.run.cgroups import discard_cgroup
from astreduce.run.room import Room, close_pipes, room_main

__all__ = ["ForkServer", "Room", "forget_server", "fork_server", "preload", "running_server"]

#: How a fresh server starts: ``sys.path`` as astreduce's (the arguments after the first four) before any
#: import (``-c`` puts the working folder first, and a ``json.py`` of the user's there must not be imported),
#: then the loop with the named functions.
_BOOT = (
    "import sys; sys.path[:] = sys.argv[5:]; "
    "from astreduce.run.forkserver import serve_descriptor; "
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
                    _serve(theirs, child_main, prepare, self.owner)
                finally:
                    os._exit(0)
        theirs.close()
        self._socket = ours
        self._unanswered: deque[Reply] = deque()
        self.answered = False
        """Whether the server has answered a request (one that never did may be unable to start)."""

    def spawn(
        self, command_fd: int, report_fd: int, workdir: str, args: tuple[Any, ...], room: Room = (True, (), False),
        cgroup: str | None = None,
    ) -> Reply:
        """Have the room of confinement ``room`` (made now if need be, in the folder holding ``workdir``) fork a
        child that runs ``child_main`` with these descriptors (theirs from now on; they may be closed here at
        once), its folder and ``args`` (marshalled); the server moves the child into the pids cgroup ``cgroup``
        before it answers. The child's pid is the reply. The request does not wait for the fork: a spare is
        forked while the test before it runs, and its pid is read when its test starts.

        Raises OSError when the server is gone.
        """
        place = (os.path.dirname(workdir), *room)
        request = marshal.dumps(("spawn", workdir, args, place, cgroup))
        return self._send(lambda: socket.send_fds(self._socket, [request], [command_fd, report_fd]))

    def preload(self, names: tuple[str, ...], search_path: str) -> int:
        """Have every room (and every room made later) import ``names`` (see :func:`preload`); how many the
        rooms imported, -1 when the imports started a Python thread (a fork would leave it behind: this
        server must not fork any more)."""
        request = marshal.dumps(("preload", names, search_path))
        return self.answer(self._send(lambda: self._socket.sendall(request)))

    def remember(self, function: str, data: object, room: Room = (True, (), False)) -> None:
        """Have the room of confinement ``room`` call ``function`` (``module:function``) with ``data`` (marshalled),
        once, so that every child it forks from now on finds what it keeps (a tree's compiled code). The data
        goes through a pipe of its own: it may be larger than a message. Raises OSError when the server is gone."""
        blob = marshal.dumps(data)  # type: ignore[arg-type]  # code objects, str and their containers
        read_end, write_end = os.pipe()
        try:
            place = (room_folder(), *room)
            request = marshal.dumps(("remember", function, place))
            self._send(lambda: socket.send_fds(self._socket, [request], [read_end]))
        finally:
            os.close(read_end)
        try:
            write_all(write_end, blob)
        finally:
            os.close(write_end)

    def status(self, pid: int) -> int:
        """The wait status of a child a room forked, once it has ended (0 if it is not known)."""
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
        """End the server (it kills its rooms and their children, and removes what they left)."""
        self._socket.close()
        if self._process is not None:
            self._process.wait()
            return
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass

    def rooms(self) -> list[int]:
        """The pids of the server's rooms (its children), as ``/proc`` shows them: the parents of the tests' children."""
        try:
            with open(f"/proc/{self.pid}/task/{self.pid}/children") as children:
                return [int(pid) for pid in children.read().split()]
        except (OSError, ValueError):
            return []


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
        _serve(socket.socket(fileno=fd), child_main, prepare, owner)
    finally:
        os._exit(0)


# --- the server: astreduce's requests, the rooms, the cgroups; never the user's code -------------------

_PR_SET_CHILD_SUBREAPER = 36
#: Rooms kept at once (each confinement a process uses; the test suite uses many, one after the other).
ROOMS_KEPT = 4


class _RoomProcess:
    """A room as the server sees it: its process and the socket to it."""

    def __init__(self, pid: int, connection: socket.socket, key: tuple[object, ...]) -> None:
        self.pid = pid
        self.connection = connection
        self.key = key

    def ask(self, request: bytes, fds: list[int] | tuple[int, ...] = ()) -> int:
        """Send a request and wait for the room's answer; OSError when the room is gone."""
        if fds:
            socket.send_fds(self.connection, [request], list(fds))
        else:
            self.connection.sendall(request)
        data = self.connection.recv(64)
        if not data:
            raise ConnectionError("the room is gone")
        return int(marshal.loads(data))

    def end(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass
        self.connection.close()


class _Server:
    """The server's state: its rooms by place, the preloads every room makes, the children that may still run."""

    def __init__(self, connection: socket.socket, child_main: str, prepare: str, owner: int) -> None:
        self.connection = connection
        self.owner = owner
        self.child_main = child_main
        self.prepare = prepare
        self.rooms: OrderedDict[tuple[object, ...], _RoomProcess] = OrderedDict()
        self.preloads: list[tuple[tuple[str, ...], str]] = []
        self.live: dict[int, tuple[int, str, str | None, _RoomProcess]] = {}
        """Children that may still run: pid -> (a pidfd of it, its folder, its cgroup, its room)."""

    def room(self, place: tuple[object, ...]) -> _RoomProcess:
        """The room of this place (its folder and confinement), made (and given every preload so far) if there is none."""
        found = self.rooms.get(place)
        if found is not None:
            self.rooms.move_to_end(place)
            return found
        made = self._make_room(place)
        for names, search_path in list(self.preloads):
            try:
                imported = made.ask(marshal.dumps(("preload", names, search_path)))
            except OSError:
                imported = -1
            if imported < 0:  # its imports start a thread (or end the room): rooms do without preloads from now on
                self.preloads.clear()
                made.end()
                made = self._make_room(place)
                break
        self.rooms[place] = made
        while len(self.rooms) > ROOMS_KEPT:
            _, old = self.rooms.popitem(last=False)
            old.end()
        return made

    def _make_room(self, place: tuple[object, ...]) -> _RoomProcess:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:  # the room: never returns
            try:
                ours.close()
                keep = theirs.fileno()
                os.closerange(3, keep)
                os.closerange(keep + 1, 1 << 16)  # astreduce's socket, the other rooms': none of a candidate's business
                folder, confined, writable, network = place
                assert isinstance(writable, tuple)
                room: Room = (bool(confined), tuple(str(path) for path in writable), bool(network))
                room_main(theirs, str(folder), room, self.child_main, self.prepare)
            finally:
                os._exit(0)
        theirs.close()
        return _RoomProcess(pid, ours, place)

    def drop(self, room: _RoomProcess) -> None:
        self.rooms.pop(room.key, None)
        room.end()

    def handle(self, request: tuple[Any, ...], fds: list[int]) -> int:
        """Answer one of astreduce's requests (see :class:`ForkServer`). Raises OSError when no room serves."""
        kind = request[0]
        if kind == "spawn":
            return self.spawn(fds, request[1], request[2], tuple(request[3]), request[4])
        if kind == "remember":
            try:
                return self.room(tuple(request[2])).ask(marshal.dumps(request[:2]), fds)
            except OSError:
                return 0
            finally:
                for fd in fds:
                    os.close(fd)
        for fd in fds:
            os.close(fd)
        if kind == "preload":
            self.preloads.append((request[1], request[2]))
            answers = []
            for room in list(self.rooms.values()):
                try:
                    answers.append(room.ask(marshal.dumps(request)))
                except OSError:
                    self.drop(room)
            return min(answers) if answers and min(answers) < 0 else sum(answers)
        found = self.live.pop(request[1], None)
        if found is None:
            return 0
        os.close(found[0])
        try:
            return found[3].ask(marshal.dumps(request))
        except OSError:
            return 0

    def spawn(self, fds: list[int], workdir: str, args: tuple[Any, ...], place: tuple[object, ...], cgroup: str | None) -> int:
        """Have the place's room fork a test's child, and move the child into its cgroup: its pid."""
        request = marshal.dumps(("spawn", workdir, args))
        try:
            for _ in range(2):
                made = self.room(place)
                try:
                    pid = made.ask(request, fds)
                    break
                except OSError:  # the room died (an import of the user's that ended it): another one
                    self.drop(made)
            else:
                raise ConnectionError("no room could fork a test")
        finally:
            for fd in fds:
                os.close(fd)
        try:
            handle = os.pidfd_open(pid)
        except (OSError, ValueError):
            raise ConnectionError("the room's child is gone") from None
        if _parent_of(pid) != made.pid:  # a room that answers for a process it did not fork is no room to serve
            os.close(handle)
            raise ConnectionError("a room answered for a process it did not fork")
        if cgroup is not None:
            _move(pid, cgroup)
        self.live[pid] = (handle, workdir, cgroup, made)
        if len(self.live) > _LIVE_LOOKED_AT:
            self._forget_has_ended()
        return pid

    def _forget_has_ended(self) -> None:
        """Forget the children that have ended (their pidfds are readable): astreduce took care of them."""
        for pid, (handle, *_) in list(self.live.items()):
            if _has_ended(handle):
                os.close(handle)
                del self.live[pid]

    def collect(self) -> None:
        """Reap the rooms that ended, and kill every other child: a test's process that left its group and
        outlived its parent comes to the server (its subreaper)."""
        while True:
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            for key, room in list(self.rooms.items()):
                if room.pid == pid:
                    self.rooms.pop(key)
                    room.connection.close()
        rooms = {room.pid for room in self.rooms.values()}
        for pid in _children_of(os.getpid()):
            if pid not in rooms:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass

    def leave(self) -> None:
        """The server's end: kill the rooms and the children that still run (what is left comes here, to be
        reaped), then remove the folders and cgroups of every child astreduce has not heard of since (one that
        waited for its test leaves when astreduce dies, and cannot remove its folder: it confined itself)."""
        running = [(pid, handle) for pid, (handle, *_) in self.live.items() if not _has_ended(handle)]
        room_folders = {str(place[0]) for place in self.rooms}
        for room in list(self.rooms.values()):
            room.end()  # first: a room that lives on would fork more
        self.rooms.clear()
        for pid, handle in running:
            try:
                os.killpg(pid, signal.SIGKILL)  # its group (the pid is still its: the pidfd said it ran)
            except OSError:
                pass
            try:
                signal.pidfd_send_signal(handle, signal.SIGKILL)  # and itself, should it have left the group
            except OSError:
                pass
        while True:
            try:
                os.wait()
            except OSError:  # ChildProcessError: none left
                break
        # an ended child's folder and cgroup are astreduce's to reuse (the folder may serve another test by now,
        # run elsewhere), unless astreduce is gone (the server is reparented): only the killed children's go
        orphaned = os.getppid() != self.owner
        killed = {pid for pid, _ in running}
        left = {workdir: cgroup for pid, (_, workdir, cgroup, _) in self.live.items() if orphaned or pid in killed}
        for handle, *_ in self.live.values():
            os.close(handle)
        self.live.clear()
        for workdir, cgroup in left.items():
            remove_workdir(workdir)
            if cgroup is not None:
                discard_cgroup(cgroup)
        if orphaned:  # astreduce died: a folder it made for a child the server had not forked yet goes too
            for folder in room_folders:
                _remove_test_folders(folder)


def _remove_test_folders(folder: str) -> None:
    """Remove the test folders left in a dead astreduce's room folder (named after it: ``ROOM-...``)."""
    prefix = os.path.basename(folder) + "-"
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if name.startswith(prefix):
            remove_workdir(os.path.join(folder, name))


def _has_ended(pidfd: int) -> bool:
    """Whether the process of ``pidfd`` has ended (its pidfd is readable)."""
    return bool(select.select([pidfd], [], [], 0)[0])


#: Children that may still run the server keeps before it looks which have ended.
_LIVE_LOOKED_AT = 64


def _parent_of(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat_file:
            return int(stat_file.read().rpartition(b")")[2].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def _children_of(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as children:
            return [int(p) for p in children.read().split()]
    except (OSError, ValueError):
        return []


def _move(pid: int, cgroup: str) -> None:
    """Move a test's child into its pids cgroup (from the server: the child, confined, cannot)."""
    try:
        with open(os.path.join(cgroup, "cgroup.procs"), "w") as procs:
            procs.write(f"{pid}\n")
    except OSError:  # a cgroup removed meanwhile: the process group kill remains
        pass


def _serve(connection: socket.socket, child_main: str, prepare: str, owner: int) -> None:
    """The server's loop: take astreduce's requests, have the rooms fork, collect what ended, answer."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the terminal's Ctrl-C is astreduce's to handle
    signal.signal(signal.SIGTERM, _leave)
    die_with_parent(signal.SIGTERM)
    if os.getppid() != owner:  # astreduce died before the line above
        _leave()
    close_pipes(keep=connection.fileno())
    try:
        import ctypes

        ctypes.CDLL(None).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    server = _SERVER[0] = _Server(connection, child_main, prepare, owner)
    try:
        while True:
            message, fds, _, _ = socket.recv_fds(connection, 1 << 16, 2)
            if not message:
                break
            reply = server.handle(marshal.loads(message), fds)
            server.collect()
            connection.sendall(marshal.dumps(reply))
    except BaseException:  # astreduce went away mid-request, or no room serves: nothing more to do
        pass
    _leave()


#: The server's state, for its end on a signal.
_SERVER: list[_Server | None] = [None]


def _leave(*signal_args: object) -> None:
    """The server's end, on its socket's end or a SIGTERM (astreduce died): clean up and exit.
    Never raises: an exception would unwind into the astreduce frames the server was forked from."""
    try:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if _SERVER[0] is not None:
            _SERVER[0].leave()
    finally:
        os._exit(0)


# --- astreduce's side -------------------------------------------------------------------------------------

_server: ForkServer | None = None
#: Whether a fresh server may be started (False once one died before it answered anything).
_fresh_works = True
#: What :func:`preload` was asked, to ask again of a server that replaces one (module names, the candidate's folder).
_preloads: dict[tuple[tuple[str, ...], str], None] = {}
#: The preloads the current server has made.
_preloaded: dict[tuple[tuple[str, ...], str], None] = {}


def fork_server(child_main: str, prepare: str = "") -> ForkServer:
    """This process's fork server, started on first use (and again if it died or this is a fork);
    ``prepare`` runs in each of its rooms once, before it forks anything, and the modules :func:`preload`
    was asked for are imported then."""
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
    """Have the fork server's rooms import ``names`` before they fork the next children (see the module
    docstring): the server started next, or the running one at its next request."""
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


@atexit.register
def _close_at_exit() -> None:
    """At exit, before the sandbox removes this process's cgroups and folders: end the server, so that the
    children of its rooms are dead and reaped (a zombie keeps a cgroup busy)."""
    if _server is not None and _server.owner == os.getpid():
        try:
            _server.close()
        except OSError:
            pass
