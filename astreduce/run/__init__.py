"""Running a candidate: the room it runs in, the processes that run it, and what a run reports.

``oracles/`` decides FAIL, PASS or UNRESOLVED; this package runs what it is
asked to and says how the run ended, as a :class:`Run`. It holds the sandbox
(folders, limits, cgroups: ``sandbox``), the room (namespaces, Landlock, the
socket filter: ``confine``), the fork server and its rooms (``forkserver``),
the children forked ahead of their tests (``spare``), a tree's entry run in
such a child (``forked_tree``), another interpreter's worker (``worker``,
running ``_worker_main.py``), a command's process (``process``), a function
called in a child (``call``), a candidate compiled in the parent
(``compiled``), and the value tracer (``trace``). Nothing here imports
``oracles/``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

#: How a run ended, as reported by the child or seen by the parent.
ENDINGS = ("ok", "exception", "syntax", "timeout", "crash")


@dataclass(frozen=True)
class Run:
    """What one execution of a candidate did."""

    ending: str
    """One of :data:`ENDINGS`."""
    exception: str = ""
    """Qualified name of the exception's type (for 'exception' and 'syntax')."""
    message: str = ""
    frame: str = ""
    """Function name of the innermost traceback frame."""
    seconds: float = 0.0
    detail: str = ""
    cpu: float | None = field(default=None, compare=False)
    """The CPU seconds a forked child reported spending on its candidate (None: not known). Far below
    :attr:`seconds` at ``-j 2``, where a finished child waits for astreduce to read its report."""
    """For 'crash' and 'timeout': what the parent saw (signal, exit status)."""
    spawned: bool | None = field(default=None, compare=False)
    """From the exec oracle's report: whether the test started a process (``None``: not known)."""
    output: str = field(default="", compare=False)
    """The end of what the test printed, when the oracle was asked to keep it (``--verbose``)."""
    frames: tuple[tuple[str, int], ...] = field(default=(), compare=False)
    """The exception's traceback, outermost first: each frame's file (relative to the test's folder when it is in
    it) and line; at most :data:`FRAMES_KEPT`, the innermost."""
    raised_at: tuple[str, int] | None = field(default=None, compare=False)
    """Where the failure happened in the candidate: the innermost frame in a file of the candidate (its path in
    the candidate's tree, its line), else in an appended script (:data:`APPENDED`, its line); None when no frame
    is in either (or the oracle cannot tell)."""
    rejected: str = field(default="", compare=False)
    """Set when the run failed as the target but does not count: why, in words (raised elsewhere, does not parse)."""

    @property
    def spent(self) -> float:
        """The CPU seconds its child reported spending on the candidate, else its wall-clock seconds: what a
        hang's CPU budget is measured against."""
        return self.seconds if self.cpu is None else self.cpu

    def describe(self) -> str:
        """A short human description: ``AssertionError('My Test')``, ``no exception``, ``exit status 0``."""
        said = self._described()
        return f"{said}, but {self.rejected}" if self.rejected else said

    def _described(self) -> str:
        if self.ending == "ok":  # a command's run says how it ended (exit status 0): "no exception" is the exec oracle's
            return self.detail or "no exception"
        if self.ending == "exception" and self.exception.startswith("exit ") and self.detail:  # a command's exit status
            return self.detail
        if self.ending in ("exception", "syntax"):
            return raised(self.exception, self.message) if self.message else self.exception
        return f"{self.ending} ({self.detail})" if self.detail else self.ending

    def located(self, files: Callable[[str], int | None], root: str = "") -> Run:
        """This run with :attr:`raised_at` found in :attr:`frames`: ``files`` gives the number of lines of a
        candidate's file by its path (None: not a file of the candidate); a frame's absolute path under ``root``
        (the test's folder) is made relative first."""
        return replace(self, raised_at=raised_in(self.frames, files, root))


def raised(exception: str, message: str) -> str:
    """An exception as Python writes it: ``ValueError('bad')``; a ``KeyError``'s message is already its key's
    repr (``'carol'``), shown as it is: ``KeyError('carol')``, not ``KeyError("'carol'")``."""
    if exception.rsplit(".", 1)[-1] == "KeyError" and message[:1] in ("'", '"') and message[-1:] == message[:1]:
        return f"{exception}({message})"
    return f"{exception}({message!r})"


#: The file name :attr:`Run.raised_at` gives an appended test script (``--append``), which no candidate changes.
APPENDED = "<append>"
#: Frames a run keeps of its traceback (the innermost): enough to find the candidate's below any library's.
FRAMES_KEPT = 100


def raised_in(frames: Iterable[tuple[str, int]], files: Callable[[str], int | None], root: str = "") -> tuple[str, int] | None:
    """The innermost of ``frames`` (outermost first) in a candidate's file (see :meth:`Run.located`)."""
    prefix = root.rstrip(os.sep) + os.sep if root else ""
    for path, line in reversed(list(frames)):
        if prefix and path.startswith(prefix):
            path = path[len(prefix):]
        elif os.path.isabs(path):
            continue
        path = os.path.normpath(path).replace(os.sep, "/")
        lines = files(path)
        if lines is not None and 1 <= line <= lines:
            return path, line
    return None


def frames_from(report: dict[str, Any]) -> tuple[tuple[str, int], ...]:
    """The frames of a child's report (see :func:`~astreduce.run._worker_main.frames_of`); () when it has none."""
    frames = report.get("frames")
    if not isinstance(frames, list):
        return ()
    return tuple((str(f[0]), int(f[1])) for f in frames if isinstance(f, list) and len(f) == 2 and isinstance(f[1], int))


#: A traceback's frame line, as Python prints it.
_FRAME_LINE = re.compile(r'^  File "(.+)", line (\d+)', re.MULTILINE)


def frames_in_text(text: str) -> tuple[tuple[str, int], ...]:
    """The frames of the last Python traceback printed in ``text`` (a command's standard error), outermost first."""
    start = text.rfind("Traceback (most recent call last):")
    if start < 0:
        return ()
    return tuple((path, int(line)) for path, line in _FRAME_LINE.findall(text, start))[-FRAMES_KEPT:]


__all__ = ["APPENDED", "ENDINGS", "FRAMES_KEPT", "Run", "frames_from", "frames_in_text", "raised_in"]
