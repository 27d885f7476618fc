"""Writing results so that no reader, and no crash, ever sees a partial one.

One file is replaced atomically (:func:`write_atomically`): written beside
it, then renamed over it. A stream of improvements is written off the
search's thread, the newest only (:class:`LatestWriter`). A temporary's
name holds its writer's pid, so that the next run removes what a killed one
left (:func:`clear_leftovers`).

A tree's output is a directory. Every improvement is written to a folder
next to it, which then takes its place: on Linux by exchanging the two in
one ``renameat2(RENAME_EXCHANGE)`` call, so a reader (or a crash) sees the
old tree or the new one, never a mixture; elsewhere by two renames, with a
moment in between when only the hidden ``.NAME.old-*`` folder holds the
previous result. The folder an exchange gives back is the next write's
(:class:`TreeWriter`): only the files that differ are written into it.
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import stat
import tempfile
import threading
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

#: The file astreduce puts in every folder it writes a result tree to: a folder holding it is never read
#: as part of an input tree or a project (an earlier run's output, whatever its name), and it is never read
#: as a file of a tree either.
OUTPUT_MARK = ".astreduce-output"
_OUTPUT_MARK_TEXT = "A result astreduce wrote: astreduce never reads this folder as part of an input tree or project.\n"


def _temporary_prefix(target: Path) -> str:
    """The start of the name of ``target``'s temporary siblings: this process's pid in it, for :func:`clear_leftovers`."""
    return f".{target.name}.{os.getpid()}-"


#: Outputs whose leftovers this process has cleared (once per output is enough).
_CLEARED: set[Path] = set()


def clear_leftovers(target: Path) -> None:
    """Remove the temporary siblings that an earlier run, killed mid-write (SIGKILL), left beside ``target``.

    A killed process cannot clean up, and ``kill -9`` may fall between the
    temporary's creation and its rename: its name holds its writer's pid,
    and a writer that is no longer alive will not finish it.
    """
    if target in _CLEARED:
        return
    _CLEARED.add(target)
    pattern = re.compile(re.escape(f".{target.name}.") + r"(\d+)-.*\.tmp$")
    try:
        siblings = list(target.parent.iterdir())
    except OSError:
        return
    for sibling in siblings:
        found = pattern.match(sibling.name)
        if found is None or _alive(int(found.group(1))):
            continue
        if sibling.is_dir() and not sibling.is_symlink():
            shutil.rmtree(sibling, ignore_errors=True)
        else:
            sibling.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def write_atomically(path: str | Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so that no reader ever sees a partial file.

    The file gets the mode a plain ``open(path, "w")`` leaves: an existing
    file's own (``--in-place`` keeps a script executable), else 0666 less
    the umask (``mkstemp``'s 0600 would hide a result from its group).
    """
    target = Path(os.path.realpath(path))  # through a link to the file: the link stays
    clear_leftovers(target.absolute())
    try:
        mode = stat.S_IMODE(target.stat().st_mode)
    except OSError:
        mode = 0o666 & ~_umask()
    handle, temporary = tempfile.mkstemp(prefix=_temporary_prefix(target), suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)  # no fsync: it protects against power loss, not a killed
            # process, and costs more than a test on a busy disk for every improvement
            os.fchmod(file.fileno(), mode)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


class LatestWriter:
    """Writes the newest of a stream of improvements to one file, off the search's thread.

    A reduction improves its output hundreds of times (671 on
    stdlib_argparse), and every atomic replace of the file cost the engine
    about 1 ms (ext4 writes a renamed-over file's data back at once): an
    eighth of its own time between tests. A thread of its own now writes,
    while the search goes on (the writes are system calls, which let go of
    the interpreter); data superseded before its turn is never written.
    Each write is still :func:`write_atomically`, so the file always holds
    one whole improvement, at worst the one before the newest when
    astreduce is killed. :meth:`flush` waits until the newest is on disk
    (:meth:`close` too, and ends the thread); a write's error is raised
    there, or by the next :meth:`put`.

    ``write`` writes something else than bytes to ``path``: a tree of files
    to its output folder (a :class:`TreeWriter`, whose every write leaves a
    whole tree): on pint under ``astreduce pytest``, 9 s of the engine's own
    work in a 200 s run, spent between tests while the search waited.
    """

    def __init__(self, path: str | Path, write: Callable[[Any], None] | None = None) -> None:
        self.path = path
        self._write: Callable[[Any], None] = write if write is not None else partial(write_atomically, path)
        self._newest: Any = None
        self._writing = False
        self._error: OSError | None = None
        self._closed = False
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def put(self, data: Any) -> None:
        """Write ``data`` soon, instead of any data not yet written."""
        with self._changed:
            if self._closed:
                raise ValueError("the writer is closed")
            self._raise()
            self._newest = data
            if self._thread is None:
                self._thread = threading.Thread(target=self._write_newest, name="astreduce-writer", daemon=True)
                self._thread.start()
            self._changed.notify_all()

    def flush(self) -> None:
        """Wait until the newest data is on disk (raise the writer's error, if a write failed)."""
        with self._changed:
            self._changed.wait_for(lambda: self._error is not None or (self._newest is None and not self._writing))
            self._raise()

    def close(self) -> None:
        """Flush, let the thread end, and close ``write`` when it has a ``close`` (a :class:`TreeWriter`'s spare)."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()
        try:
            self.flush()
        finally:
            closing = getattr(self._write, "close", None)
            if closing is not None:
                closing()

    def _raise(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    def _write_newest(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._newest is not None or self._closed)
                if self._newest is None:
                    return
                data, self._newest, self._writing = self._newest, None, True
            try:
                self._write(data)
            except OSError as error:
                with self._changed:
                    self._error, self._newest = error, None
            finally:
                with self._changed:
                    self._writing = False
                    self._changed.notify_all()


def _exchange(a: Path, b: Path) -> bool:
    """Swap two directories in one step (Linux ``renameat2``); False where that is not available."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    done = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange)
    return bool(done == 0)


def write_tree(
    target: Path, tree: Mapping[str, str], modes: Mapping[str, int] | None = None, held: Mapping[str, str] | None = None,
    keep_previous: bool = False,
) -> tuple[Path, dict[str, str]] | None:
    """Make the directory ``target`` hold exactly ``tree`` (see the module docstring for how). ``held``: what
    ``target`` holds now, as this process wrote it; its files ``tree`` keeps unchanged are linked, not written.
    ``keep_previous``: when ``target`` held ``held`` and the two folders were exchanged, the folder that now holds
    ``held`` is kept, and returned with it, for :class:`TreeWriter`'s next write (else removed; None)."""
    modes = modes or {}
    held = held or {}
    clear_leftovers(target.absolute())
    fresh = Path(tempfile.mkdtemp(prefix=_temporary_prefix(target), suffix=".tmp", dir=target.parent))
    try:
        os.chmod(fresh, 0o777 & ~_umask())
        (fresh / OUTPUT_MARK).write_text(_OUTPUT_MARK_TEXT, encoding="utf-8")
        for path, text in tree.items():
            file = fresh / path
            file.parent.mkdir(parents=True, exist_ok=True)
            before = held.get(path)
            if before is not None and (before is text or before == text) and _linked(target / path, file):
                continue  # the same inode: its mode was set when it was written
            file.write_bytes(text.encode("utf-8", errors="surrogateescape"))
            if path in modes:
                os.chmod(file, modes[path] & 0o7777)
        if target.is_dir() and _exchange(fresh, target):
            if keep_previous and held:
                return fresh, dict(held)  # it now holds the previous result
            shutil.rmtree(fresh, ignore_errors=True)
            return None
        if target.is_dir():
            old = Path(tempfile.mkdtemp(prefix=_temporary_prefix(target) + "old-", suffix=".tmp", dir=target.parent))
            os.replace(target, old)  # an empty folder is replaced by a rename
            os.replace(fresh, target)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(fresh, target)
        return None
    except BaseException:
        shutil.rmtree(fresh, ignore_errors=True)
        raise


def _linked(source: Path, link: Path) -> bool:
    try:
        os.link(source, link)
    except OSError:  # gone, another file system, links not supported: written instead
        return False
    return True


class TreeWriter:
    """Writes each improvement of a tree to the output directory ``target``, whole, in one exchange (see the module
    docstring), keeping the folder that exchange gives back as the next write's starting point: a write brings it
    from the tree it holds (two improvements back) to the new one, changing only the files that differ, then
    exchanges it with ``target``. Writing pint's tree (75 files, 520 kB) takes 32 ms, linking its unchanged files
    into a fresh folder and removing the old one 5 ms (most of it in the kernel: 5 s of a 95 s run's CPU on pint
    under ``astreduce pytest``), bringing the spare folder up to date well under a millisecond. A changed file is
    always a new file (the old one unlinked, never written in place): the spare and ``target`` share the inodes of
    what neither changed. Calling it again with the tree it holds does nothing; :meth:`close` (or the end of a
    ``with`` block) removes the spare."""

    def __init__(self, target: Path, modes: Mapping[str, int] | None = None) -> None:
        self.target = target
        self.modes = modes
        self.held: dict[str, str] | None = None
        self._spare: tuple[Path, dict[str, str]] | None = None

    def __call__(self, tree: Mapping[str, str]) -> None:
        if self.held is not None and self.held == tree and self.target.is_dir():
            return
        if self._spare is not None and self.held is not None and self.target.is_dir():
            folder, holds = self._spare
            self._spare = None
            try:
                _bring(folder, holds, tree, self.modes or {})
                exchanged = _exchange(folder, self.target)
            except BaseException:
                shutil.rmtree(folder, ignore_errors=True)
                raise
            if exchanged:
                self._spare = (folder, self.held)
                self.held = dict(tree)
                return
            shutil.rmtree(folder, ignore_errors=True)
        self._spare = write_tree(self.target, tree, self.modes, self.held, keep_previous=True)
        self.held = dict(tree)

    def __enter__(self) -> TreeWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Remove the spare folder (the target keeps the last tree written)."""
        if self._spare is not None:
            shutil.rmtree(self._spare[0], ignore_errors=True)
            self._spare = None


def _bring(folder: Path, holds: Mapping[str, str], tree: Mapping[str, str], modes: Mapping[str, int]) -> None:
    """Make ``folder``, which holds ``holds`` as written, hold ``tree``: each file that differs unlinked and written
    anew, each file gone unlinked and the folders it leaves empty removed."""
    for path in holds.keys() - tree.keys():
        (folder / path).unlink(missing_ok=True)
        parent = (folder / path).parent
        while parent != folder:
            try:
                parent.rmdir()
            except OSError:  # not empty
                break
            parent = parent.parent
    for path, text in tree.items():
        before = holds.get(path)
        if before is not None and (before is text or before == text):
            continue
        file = folder / path
        if before is not None:
            file.unlink(missing_ok=True)
        else:
            file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(text.encode("utf-8", errors="surrogateescape"))
        if path in modes:
            os.chmod(file, modes[path] & 0o7777)


def _umask() -> int:
    """The process's umask, read where reading it does not change it (``/proc/self/status``): setting it
    to 0 and back, the portable way, would let another thread create a world-writable file meanwhile."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0)
    os.umask(mask)
    return mask
