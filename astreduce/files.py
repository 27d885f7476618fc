"""Sources and trees on disk: reading them, checking where the output goes.

One file (:func:`read_source`, :class:`Source`) is read in its own encoding
(PEP 263 cookie, BOM), to be written back the same way, to a path checked
before any work is done (:func:`check_output_path`, :func:`check_outputs`).

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

Results are written by :mod:`astreduce.writes`.
"""

from __future__ import annotations

import os
import re
import stat
import tokenize
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from astreduce.errors import UsageError
from astreduce.writes import OUTPUT_MARK, clear_leftovers
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
    clear_leftovers(target.absolute())  # what a killed earlier run left, whatever this one does next
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


# --- trees of files -----------------------------------------------------------------

#: Folders never read from an input directory: caches, version control, environments.
SKIPPED_DIRS = frozenset({"__pycache__", ".git", ".hg", ".svn", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis", ".tox", ".venv", ".nox"})
SKIPPED_SUFFIXES = (".pyc", ".pyo")


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
    clear_leftovers(target.absolute())  # what a killed earlier run left, whatever this one does next
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
