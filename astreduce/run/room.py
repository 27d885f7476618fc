"""A room of the fork server (see :mod:`astreduce.run.forkserver`): a process forked by the server that
confines itself at once, as a candidate is confined, imports what every test would, and forks the
tests' children on the server's requests. It runs the user's code (the preloaded imports); the server
never does.
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
import sys
import threading
from collections.abc import Callable
from typing import Any

from astreduce.run import confine
from astreduce.run.confine import die_with_parent

#: What a room runs in a child it forks: (command fd, report fd, folder, the request's arguments); never returns.
ChildMain = Callable[[int, int, str, tuple[Any, ...]], None]
#: What a room does once, when it starts, so that no child it forks does it again.
Prepare = Callable[[], None]
#: A room's confinement: (confined, the paths it may write besides its folder, the host's network allowed).
Room = tuple[bool, tuple[str, ...], bool]


def named(name: str) -> Callable[..., Any]:
    module, _, function = name.partition(":")
    found: Callable[..., Any] = getattr(importlib.import_module(module), function)
    return found


def room_main(connection: socket.socket, folder: str, room: Room, child_main: str, prepare: str) -> None:
    """A room's life: confine itself to ``folder`` (as ``room`` says), prepare, then fork on request."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    die_with_parent()
    confined, writable, network = room
    os.chdir(folder)
    if confined:
        confine.confine(folder, writable, (), network, False, True)  # type: ignore[no-untyped-call]  # free of annotations
    main = named(child_main)
    if prepare:
        named(prepare)()
    ended: dict[int, int] = {}  # pid -> wait status, of children reaped before anyone asked
    while True:
        message, fds, _, _ = socket.recv_fds(connection, 1 << 16, 2)
        if not message:
            return
        request = marshal.loads(message)
        if request[0] == "spawn":
            reply = _spawn(connection, main, fds, request[1], request[2])
        elif request[0] == "preload":
            reply = _preload(request[1], request[2])
        elif request[0] == "remember":
            reply = _remember(request[1], fds[0])
        else:
            for fd in fds:
                os.close(fd)
            reply = _status(request[1], ended)
        _collect(ended)
        connection.sendall(marshal.dumps(reply))


def _preload(names: tuple[str, ...], search_path: str) -> int:
    """In a room: import ``names`` for every child to find imported. A module found in the
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
    gc.freeze()  # out of the children's collections, as the rest of the room
    return -1 if threading.active_count() > 1 else imported


def _remember(function: str, fd: int) -> int:
    """In a room: read the data astreduce writes into the pipe ``fd`` and hand it to ``function``."""
    chunks = []
    try:
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(fd)
    try:
        named(function)(marshal.loads(b"".join(chunks)))
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


def close_pipes(keep: int) -> None:
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


def _collect(ended: dict[int, int]) -> None:
    """Reap the children that ended (killed tests nobody asks about); keep their statuses a while."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        if len(ended) >= 4096:
            ended.pop(next(iter(ended)))
        ended[pid] = status


__all__ = ["ChildMain", "Prepare", "Room", "close_pipes", "named", "room_main"]
