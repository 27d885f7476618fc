"""What may be an input and what may be an output, checked before any work: regular files only (no
device, FIFO, socket, nor a file of ``/proc`` or ``/sys``, links followed), inputs under a size limit,
outputs where astreduce may write."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from astreduce.errors import UsageError

#: The largest input file read (16 MiB) unless ``--max-input-bytes`` raises it: a Python program larger
#: than that is most likely a mistake, and its reduction would take days.
MAX_INPUT_BYTES = 16 << 20

#: File systems whose files are the kernel's, not the user's: never an input, never an output.
_KERNEL_FILE_SYSTEMS = ("/proc", "/sys")


@dataclass(frozen=True)
class InputPolicy:
    """How inputs are read: the largest file (``--max-input-bytes``), and whether a link inside an input
    folder is followed when it stays inside (``--follow-symlinks``)."""

    max_bytes: int = MAX_INPUT_BYTES
    follow_symlinks: bool = False


#: For a file the command line has checked already (a batch's input, read again where it runs): no size
#: limit, and still nothing but a regular file.
CHECKED = InputPolicy(max_bytes=1 << 62)


def file_kind(mode: int) -> str:
    """What a file of this mode is, in words (for an error message)."""
    for test, kind in (
        (stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link"),
    ):
        if test(mode):
            return kind
    return "not a regular file"


def on_kernel_file_system(path: str | Path) -> str | None:
    """The kernel file system (``/proc``, ``/sys``) that ``path``, or a link on the way to it, names (a link to
    ``/proc/self/fd/1`` leads to whatever standard output is), or None."""
    for step in _steps(path):
        for root in _KERNEL_FILE_SYSTEMS:
            if step == root or step.startswith(root + os.sep):
                return root
    return None


def _steps(path: str | Path) -> list[str]:
    """``path`` made absolute, then each path a link on the way names (each made absolute), then where it
    all leads: every place a write to ``path`` would go through."""
    found = [os.path.abspath(path)]
    for _ in range(40):  # the kernel's own limit of links followed
        parts = found[-1].split(os.sep)
        for index in range(2, len(parts) + 1):
            prefix = os.sep.join(parts[:index])
            if os.path.islink(prefix):
                try:
                    target = os.readlink(prefix)
                except OSError:
                    break
                found.append(os.path.normpath(os.path.join(os.path.dirname(prefix), target, *parts[index:])))
                break
        else:
            break
    found.append(os.path.realpath(path))
    return found


def in_units(size: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} bytes"


def check_input_file(path: str | Path, policy: InputPolicy = InputPolicy()) -> os.stat_result:
    """Raise UsageError unless ``path`` is a regular file (links followed) under the policy's size limit, and
    not a kernel file; its ``stat`` otherwise. Checks what it can without reading a byte."""
    kernel = on_kernel_file_system(path)
    if kernel is not None:
        raise UsageError(f"{path}: is on {kernel}, the kernel's own files; astreduce reads regular files only")
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise UsageError(f"{path}: cannot read: No such file or directory") from None
    except OSError as error:
        raise UsageError(f"{path}: cannot read: {error.strerror}") from None
    if stat.S_ISDIR(info.st_mode):
        raise UsageError(f"{path}: is a directory, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise UsageError(f"{path}: is {file_kind(info.st_mode)}, not a regular file; astreduce reads regular files only")
    if info.st_size > policy.max_bytes:
        raise UsageError(
            f"{path}: is {in_units(info.st_size)}, over the input limit of {in_units(policy.max_bytes)}; "
            f"raise it with --max-input-bytes {info.st_size}"
        )
    return info


def check_writable_file(target: Path, what: str = "output") -> None:
    """Raise UsageError unless ``target`` (links followed) is a regular file astreduce may replace, or a new
    name in a folder it may write: never a device, a FIFO, a socket, or a file of ``/proc`` or ``/sys``,
    which an atomic replace would turn into a regular file (``-o /dev/null`` did, as root)."""
    kernel = on_kernel_file_system(target)
    if kernel is not None:
        raise UsageError(f"{target}: the {what} would be written on {kernel}, the kernel's own files; write it to a regular file")
    try:
        info: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise UsageError(f"{target}: cannot write the {what}: {error.strerror}") from None
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            raise UsageError(f"{target}: the {what} is a directory")
        if not stat.S_ISREG(info.st_mode):
            raise UsageError(
                f"{target}: the {what} is {file_kind(info.st_mode)}, not a regular file; "
                f"astreduce writes its {what} to a regular file, or to a new one"
            )
        if not os.access(target, os.W_OK):
            raise UsageError(f"{target}: cannot write the {what}: Permission denied")
    folder = Path(os.path.realpath(target)).parent
    if not folder.is_dir():
        raise UsageError(f"{target}: the {what}'s folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"{target}: cannot write the {what}: its folder {folder} is not writable")


def check_output_folder(target: Path) -> None:
    """Raise UsageError, before any work, when the output directory ``target`` cannot be made or replaced: on a
    kernel file system, in a folder astreduce may not write, or where a file of another kind is."""
    kernel = on_kernel_file_system(target)
    if kernel is not None:
        raise UsageError(f"{target}: the output would be written on {kernel}, the kernel's own files; write it elsewhere")
    folder = target.resolve().parent
    if not folder.is_dir():
        raise UsageError(f"{target}: the output's folder {target.parent} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"{target}: cannot write the output: its folder {folder} is not writable")
    if target.exists() and not target.is_dir():
        raise UsageError(f"{target}: the output must be a directory, and this is {'a file' if target.is_file() else file_kind(target.stat().st_mode)}")


__all__ = [
    "CHECKED", "MAX_INPUT_BYTES", "InputPolicy", "check_input_file", "check_output_folder", "check_writable_file",
    "file_kind", "in_units", "on_kernel_file_system",
]
