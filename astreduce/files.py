"""Sources and trees on disk: reading them, checking where the output goes, writing it.

One file (:func:`read_source`, :class:`Source`) is read in its own encoding
(PEP 263 cookie, BOM) and written back the same way, atomically
(:func:`write_atomically`), to a path checked before any work is done
(:func:`check_output_path`, :func:`check_outputs`).

Every path is checked before the first test, so that a reduction never
fails at its end for want of a place to write, and never reads what is
not a file:

* an output (``-o``, ``--report``, ``--csv``, ``--plot``, ...) is a regular
  file, or a new name, in a folder astreduce may write; a device, a FIFO, a
  socket, a folder, or a path on ``/proc`` or ``/sys`` (a link to one
  included) is refused in one line (exit 2). A link to a regular file is
  written through: the link stays, its file is replaced;
* an input is a regular file (or a folder of them), read only up to
  :data:`MAX_INPUT_BYTES` unless :class:`InputPolicy` raises the limit
  (``--max-input-bytes``); a FIFO would block, ``/dev/zero`` never ends;
* a link inside an input folder is refused, naming it, unless
  ``--follow-symlinks`` is given: then a link to a file or a folder inside
  the folder is read as that file or folder, and one that leads outside it
  is still refused (it would read ``/etc/passwd`` into the tree).

A multi-file reduction's input is a directory, several files, or both; it is read once, and never
written. Its files become a tree: relative path (with ``/``) → text, decoded
as UTF-8 with ``surrogateescape`` so that any bytes (another encoding, a
binary file) are written back exactly as they were read.

The output is a directory. Every improvement is written to a folder next
to it, which then takes its place: on Linux by exchanging the two in one
``renameat2(RENAME_EXCHANGE)`` call, so a reader (or a crash) sees the old
tree or the new one, never a mixture; elsewhere by two renames, with a
moment in between when only the hidden ``.NAME.old-*`` folder holds the
previous result. The folder an exchange gives back is the next write's
(:class:`TreeWriter`): only the files that differ are written into it. A non-empty directory that astreduce did not just create is
never replaced: removing a user's folder is not a risk worth taking for a
default output name.
"""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import stat
import tempfile
import threading
import tokenize
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from pathlib import Path

from astreduce.errors import UsageError
from astreduce.file_checks import (
    InputPolicy,
    check_input_file,
    check_output_folder,
    check_writable_file,
    file_kind,
    in_units,
)

#: PEP 263's coding declaration, as the tokenizer looks for it on the first two lines.
_COOKIE = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def _cookie_line(lines: list[str]) -> str | None:
    """The line of ``lines`` (the first two of a file) that declares its encoding, if any."""
    for number, line in enumerate(lines[:2]):
        if _COOKIE.match(line):
            return line
        if number == 0 and line.strip() and not line.lstrip().startswith("#"):
            return None  # code on line 1: a cookie on line 2 does not count
    return None


@dataclass
class Source:
    """A text file as read: the text plus what is needed to write it back the same way."""

    text: str
    encoding: str = "utf-8"
    bom: bool = False
    cookie: str | None = None
    """The original's coding declaration line (with its line ending), if it had one."""

    def encode(self, text: str) -> bytes:
        """``text`` in the original's encoding, BOM included.

        A candidate is run as text, so a reduction may drop the coding
        declaration (it is only a comment) while non-ASCII characters remain;
        written in a non-UTF-8 encoding without it, the file would no longer
        run. The original's declaration is put back in that case.
        """
        data = text.encode(self.encoding, errors="surrogateescape")
        if self.cookie is not None and not data.isascii() and _cookie_line(text.splitlines(keepends=True)) is None:
            data = _with_cookie(text, self.cookie).encode(self.encoding, errors="surrogateescape")
        return (b"\xef\xbb\xbf" + data) if self.bom else data


def _with_cookie(text: str, cookie: str) -> str:
    """``text`` with the declaration line ``cookie`` first (after a ``#!`` line, if any)."""
    if not cookie.endswith(("\n", "\r")):
        cookie += newline_of(text)
    if text.startswith("#!"):
        first, newline, rest = text.partition("\n")
        if newline:
            return first + newline + cookie + rest
        return text + newline_of(cookie) + cookie
    return cookie + text


def newline_of(text: str, default: str = "\n") -> str:
    """The line ending of the first line of ``text``, or ``default`` when it has none."""
    match = re.search(r"\r\n|\n|\r", text)
    return match.group() if match else default


def _read_limited(path: str | Path, policy: InputPolicy) -> bytes:
    """The bytes of a file :func:`check_input_file` accepted, never more than the limit (it may grow meanwhile)."""
    info = check_input_file(path, policy)
    try:
        with open(path, "rb") as file:
            data = file.read(min(policy.max_bytes, info.st_size + (1 << 16)) + 1)
    except IsADirectoryError:
        raise UsageError(f"{path}: is a directory, not a file") from None
    except OSError as error:
        raise UsageError(f"{path}: cannot read: {error.strerror}") from None
    if len(data) > policy.max_bytes:
        raise UsageError(f"{path}: grew over the input limit of {in_units(policy.max_bytes)} while it was read; raise it with --max-input-bytes")
    return data


def read_source(path: str | Path, policy: InputPolicy = InputPolicy()) -> Source:
    """Read a file keeping its encoding (PEP 263 cookie, BOM) and its line endings.

    Raises:
        UsageError: the file is missing, unreadable, not a regular file, over the policy's size limit, or not text.
    """
    data = _read_limited(path, policy)
    try:
        encoding, _ = tokenize.detect_encoding(iter(data.splitlines(keepends=True)).__next__)
    except SyntaxError as error:
        head = data[3:1024] if data.startswith(b"\xef\xbb\xbf") else data[:1024]
        if _cookie_line(head.decode("latin-1").splitlines(keepends=True)[:2]) is not None:
            # an unknown codec, or a declaration that contradicts the BOM
            raise UsageError(f"{path}: bad coding declaration: {error.msg}") from None
        encoding = "utf-8"  # the first lines are not UTF-8: the decoding below says where
    bom = encoding == "utf-8-sig"
    if bom:
        data = data[3:]
        encoding = "utf-8"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise UsageError(
            f"{path}:{line}: not {encoding} text (byte 0x{data[error.start]:02x}): "
            "a binary file, or a missing coding declaration?"
        ) from None
    except LookupError:
        raise UsageError(f"{path}: unknown encoding {encoding}") from None
    return Source(text, encoding, bom, _cookie_line(text.splitlines(keepends=True)[:2]))


def default_output(path: str | Path) -> Path:
    """Where a reduction of ``path`` goes by default: ``NAME.reduced.py`` next to it."""
    path = Path(path)
    return path.with_name(f"{path.stem}.reduced{path.suffix or '.py'}")


def check_output_path(target: Path, source: Path | None = None, what: str = "output") -> None:
    """Raise UsageError, before any work is done, when ``target`` cannot be written.

    Args:
        target: the file to be written.
        source: the input file; ``target`` must not be it.
        what: how the error message names ``target``.
    """
    folder = Path(os.path.realpath(target)).parent
    if not folder.is_dir():
        raise UsageError(f"{target}: the {what}'s folder {target.parent} does not exist")
    _clear_leftovers(target.absolute())  # what a killed earlier run left, whatever this one does next
    if target.is_dir():
        raise UsageError(f"{target}: the {what} is a directory")
    if source is not None and target.resolve() == source.resolve():
        raise UsageError(f"{target}: the output would overwrite the input; use --in-place for that")
    check_writable_file(target, what)


def check_outputs(outputs: Iterable[tuple[Path | None, str]], source: Path | None = None) -> None:
    """:func:`check_output_path` for each ``(path, what)`` of a command's outputs (``-o``, ``--report``,
    ``--csv``, ``--plot``, ...); a path that is None or ``-`` (standard output) is left alone."""
    for path, what in outputs:
        if path is not None and str(path) != "-":
            check_output_path(path, source, what=what)


def _temporary_prefix(target: Path) -> str:
    """The start of the name of ``target``'s temporary siblings: this process's pid in it, for :func:`_clear_leftovers`."""
    return f".{target.name}.{os.getpid()}-"


#: Outputs whose leftovers this process has cleared (once per output is enough).
_CLEARED: set[Path] = set()


def _clear_leftovers(target: Path) -> None:
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
    _clear_leftovers(target.absolute())
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


# --- trees of files -----------------------------------------------------------------

#: Folders never read from an input directory: caches, version control, environments.
SKIPPED_DIRS = frozenset({"__pycache__", ".git", ".hg", ".svn", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis", ".tox", ".venv", ".nox"})
SKIPPED_SUFFIXES = (".pyc", ".pyo")
#: The file astreduce puts in every folder it writes a result tree to: a folder holding it is never read
#: as part of an input tree or a project (an earlier run's output, whatever its name), and it is never read
#: as a file of a tree either.
OUTPUT_MARK = ".astreduce-output"
_OUTPUT_MARK_TEXT = "A result astreduce wrote: astreduce never reads this folder as part of an input tree or project.\n"


def is_output_folder(folder: str | Path) -> bool:
    """Whether ``folder`` is a result tree astreduce wrote (it holds :data:`OUTPUT_MARK`)."""
    return os.path.isfile(os.path.join(folder, OUTPUT_MARK))
#: More files than this is most likely a mistake (a home folder, a virtual environment).
MAX_FILES = 2000

#: A tree of files: relative path (with ``/``) to the file's text (bytes kept through ``surrogateescape``).
FileTree = dict[str, str]


@dataclass
class InputTree:
    """What ``astreduce reduce DIR`` (or ``FILE FILE ...``) reads."""

    root: Path
    """The folder the tree's paths are relative to."""
    files: dict[str, str]
    modes: dict[str, int] = field(default_factory=dict)
    named: list[str] = field(default_factory=list)
    """The files named one by one on the command line, as tree paths, in order."""
    folders: list[Path] = field(default_factory=list)
    """The directories named on the command line (resolved)."""


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="surrogateescape")


def _read(path: Path, relative: str, into: InputTree, policy: InputPolicy) -> None:
    info = check_input_file(path, policy)
    into.files[relative] = _decode(_read_limited(path, policy))
    into.modes[relative] = stat.S_IMODE(info.st_mode)
    if len(into.files) > MAX_FILES:
        raise UsageError(f"{path}: more than {MAX_FILES} files in the input; reduce a smaller folder")


def walk_files(top: Path, root: Path, policy: InputPolicy = InputPolicy()) -> Iterator[tuple[Path, str]]:
    """Every file of the folder ``top`` (in the tree whose folder is ``root``), in ``os.walk``'s order:
    where to read it, and its path in the tree (``/``-separated, by the names seen in the folder).

    Caches and version control are left out (:data:`SKIPPED_DIRS`, :data:`SKIPPED_SUFFIXES`). A link is
    refused, named, unless the policy follows links: then one that leads inside ``root`` is read as its
    file or folder (a folder already on the way down, a loop, is not read again), and one that leads
    outside is refused all the same. A FIFO, a socket or a device is refused, named: reading it would
    block, or never end. Never recursive.

    Raises:
        UsageError: such a link or file, or a folder that cannot be read.
    """
    inside = os.path.realpath(root)
    stack: list[tuple[Path, str, frozenset[str]]] = [
        (top, "" if top == root else top.relative_to(root).as_posix(), frozenset({os.path.realpath(top)}))
    ]
    while stack:
        folder, prefix, above = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError as error:
            raise UsageError(f"{folder}: cannot read: {error.strerror}") from None
        below: list[tuple[Path, str, frozenset[str]]] = []
        for entry in entries:
            logical = f"{prefix}/{entry.name}" if prefix else entry.name
            shown = root / logical
            try:
                info = os.stat(entry.path) if entry.is_symlink() else entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                raise UsageError(f"{shown}: is a broken symbolic link (to {os.readlink(entry.path)})") from None
            except OSError as error:
                raise UsageError(f"{shown}: cannot read: {error.strerror}") from None
            real = Path(entry.path)
            if entry.is_symlink():
                target = os.path.realpath(entry.path)
                if not policy.follow_symlinks:
                    raise UsageError(
                        f"{shown}: is a symbolic link (to {os.readlink(entry.path)}); astreduce follows no link in an "
                        "input folder: give --follow-symlinks to follow those that stay inside it"
                    )
                if target != inside and not target.startswith(inside + os.sep):
                    raise UsageError(f"{shown}: is a symbolic link to {target}, outside {root}; astreduce follows only links that stay inside it")
                real = Path(target)
            if stat.S_ISDIR(info.st_mode):
                key = os.path.realpath(real)
                if entry.name not in SKIPPED_DIRS and key not in above and not is_output_folder(real):
                    below.append((real, logical, above | {key}))
                continue
            if entry.name.endswith(SKIPPED_SUFFIXES) or entry.name == OUTPUT_MARK:
                continue
            if not stat.S_ISREG(info.st_mode):
                raise UsageError(f"{shown}: is {file_kind(info.st_mode)}, not a regular file; astreduce reads regular files only")
            yield real, logical
        stack.extend(reversed(below))


def read_input(paths: Sequence[Path], policy: InputPolicy = InputPolicy()) -> InputTree:
    """Read a directory, several files, or both, into one tree.

    The tree's root is the directory itself when one directory is given,
    otherwise the deepest folder holding every input.

    Raises:
        UsageError: a path is missing or unreadable, not a regular file, over the policy's limit, a link in
            a folder the policy does not follow, or there is no file at all.
    """
    resolved: list[Path] = []
    for path in paths:
        if not path.exists():
            raise UsageError(f"{path}: cannot read: No such file or directory")
        resolved.append(path.resolve())
    if len(resolved) == 1 and resolved[0].is_dir():
        root = resolved[0]
    else:
        root = Path(os.path.commonpath([p if p.is_dir() else p.parent for p in resolved]))
    tree = InputTree(root, {})
    for path in resolved:
        if path.is_dir():
            tree.folders.append(path)
            for file, relative in walk_files(path, root, policy):
                _read(file, relative, tree, policy)
        else:
            relative = path.relative_to(root).as_posix()
            _read(path, relative, tree, policy)
            if relative not in tree.named:
                tree.named.append(relative)
    if not tree.files:
        where = " ".join(str(p) for p in paths)
        raise UsageError(f"{where}: the directory holds no files to reduce")
    return tree


def default_output_dir(paths: Sequence[Path]) -> Path:
    """``DIR.reduced`` next to a directory; ``NAME.reduced`` next to the first of several files."""
    first = paths[0]
    if first.is_dir():
        return first.resolve().with_name(first.resolve().name + ".reduced")
    return first.with_name(f"{first.stem}.reduced")


def check_output_dir(target: Path, given: InputTree) -> None:
    """Raise UsageError, before any work, when ``target`` cannot be the output directory."""
    check_output_folder(target)
    _clear_leftovers(target.absolute())  # what a killed earlier run left, whatever this one does next
    resolved = target.resolve()
    for inside in given.folders:
        if resolved == inside or inside in resolved.parents:
            raise UsageError(f"{target}: the output would be inside the input directory {inside}; write it elsewhere")
    if target.is_dir() and any(target.iterdir()):
        raise UsageError(f"{target}: the output directory exists and is not empty; remove it or choose another with -o")


def check_report_path(report: Path, given: InputTree) -> None:
    """The report must go to a writable place outside the input directories."""
    if not report.resolve().parent.is_dir():
        raise UsageError(f"{report}: the report's folder {report.parent} does not exist")
    if report.is_dir():
        raise UsageError(f"{report}: the report is a directory")
    resolved = report.resolve()
    for inside in given.folders:
        if inside in resolved.parents:
            raise UsageError(f"{report}: the report would be written inside the input directory {inside}")
    if any(resolved == (given.root / path).resolve() for path in given.files):
        raise UsageError(f"{report}: the report would overwrite an input file")
    check_writable_file(report, "report")


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
    _clear_leftovers(target.absolute())
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


def materialise(tree: Mapping[str, str], folder: str | Path) -> None:
    """Write ``tree`` into ``folder`` (which exists), bytes as they were read."""
    root = Path(folder)
    for path, text in tree.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode("utf-8", errors="surrogateescape"))


def read_tree(folder: str | Path, policy: InputPolicy = InputPolicy()) -> FileTree:
    """Every file under ``folder`` (caches and VCS folders left out), keyed by relative path (see
    :func:`walk_files` for links and what is not a regular file).

    Raises:
        UsageError: the folder cannot be read, or holds what :func:`walk_files` refuses.
    """
    root = Path(folder)
    tree: FileTree = {}
    for path, relative in walk_files(root, root, policy):
        tree[relative] = _read_limited(path, policy).decode("utf-8", errors="surrogateescape")
    return tree


def resolve_entry(entry: str | None, given: InputTree) -> str | None:
    """``--entry`` as a path of the tree: relative to the tree's root, or to the working directory.

    Without ``--entry``, several files named one by one run the first of them.
    """
    if entry is None:
        return given.named[0] if given.named and not given.folders else None
    relative = Path(entry).as_posix()
    if relative in given.files:
        return relative
    resolved = Path(entry).resolve()
    if given.root in resolved.parents:
        inside = resolved.relative_to(given.root).as_posix()
        if inside in given.files:
            return inside
    return relative  # reduce_tree says that it is not in the input
