"""Candidate trees on disk as a patch over a prepared copy of OLD, not copied whole.

Every candidate of ``astreduce isolate`` is OLD with some changes: on a
project of hundreds of files, most of each candidate is OLD's own files. A
:class:`PreparedTree` writes OLD once into a folder of its own; a test's
folder then gets a hard link to each file the candidate leaves as it is in
OLD, and only the files the candidate changes are written (:meth:`PreparedTree.lay_out`).
A hard link is the file itself under the test folder's path: the program
under test sees an ordinary file where a copy would be (unlike a symbolic
link, which Python resolves for a script's folder, and pytest for its root).

The prepared files are read-only, and after each test their sizes and
times are compared with what was written (:meth:`PreparedTree.repair`): a
test that wrote into one of them anyway (as root may) has it written again
before the next candidate links it. Where a link cannot be made (another
file system), the file is written, as before.

:class:`PreparedOracle` is the tree oracle of ``isolate``
(:class:`~astreduce.oracles.tree.DirectoryOracle`) with this layout; a copy
rebuilt on a Dask worker has no prepared tree and writes whole trees.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field

from astreduce.files import FileTree, materialise
from astreduce.oracles import Converted, Pending, Verdict
from astreduce.oracles.tree import DirectoryOracle

#: The mode of a prepared file: read-only, so that a candidate cannot change it by mistake.
READ_ONLY = 0o444


class PreparedTree:
    """OLD written once to a folder; candidate trees laid out as links to it plus their changed files."""

    def __init__(self, old: Mapping[str, str]) -> None:
        self.old = dict(old)
        self.folder = tempfile.mkdtemp(prefix="astreduce-prepared-")
        materialise(self.old, self.folder)
        self.stamps: dict[str, tuple[int, int]] = {}
        for path in self.old:
            target = os.path.join(self.folder, path)
            os.chmod(target, READ_ONLY)
            self.stamps[path] = _stamp(target)
        self.linked = 0
        """Files laid out as links, over all tests."""
        self.written = 0
        """Files written, over all tests (those a candidate changes, and any that could not be linked)."""
        self.repaired = 0
        """Prepared files a test changed, written again."""

    def lay_out(self, tree: Mapping[str, str], workdir: str) -> None:
        """Lay ``tree`` out in the empty folder ``workdir``: links where it has OLD's text, the rest written."""
        changed: dict[str, str] = {}
        folders: set[str] = set()
        same: list[str] = []
        for path, text in tree.items():
            before = self.old.get(path)
            if before is text or (before is not None and before == text):
                same.append(path)
                folders.add(os.path.dirname(path))
            else:
                changed[path] = text
        for folder in sorted(folders):
            if folder:
                os.makedirs(os.path.join(workdir, folder), exist_ok=True)
        for path in same:
            try:
                os.link(os.path.join(self.folder, path), os.path.join(workdir, path))
                self.linked += 1
            except OSError:
                changed[path] = tree[path]
        self.written += len(changed)
        materialise(changed, workdir)

    def repair(self) -> None:
        """Write again any prepared file a test changed (its size or time differ), read-only again."""
        for path, stamp in self.stamps.items():
            target = os.path.join(self.folder, path)
            try:
                now = _stamp(target)
            except OSError:
                now = (-1, -1)
            if now != stamp:
                try:
                    os.chmod(target, 0o600)
                except OSError:
                    pass
                materialise({path: self.old[path]}, self.folder)
                os.chmod(target, READ_ONLY)
                self.stamps[path] = _stamp(target)
                self.repaired += 1

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def _stamp(path: str) -> tuple[int, int]:
    found = os.stat(path)
    return (found.st_size, found.st_mtime_ns if stat.S_IMODE(found.st_mode) == READ_ONLY else -2)


@dataclass
class PreparedOracle(DirectoryOracle):
    """The tree oracle of ``isolate``, laying candidates out over a :class:`PreparedTree` of OLD once :meth:`prepare` is called."""

    _prepared: PreparedTree | None = field(default=None, init=False, repr=False, compare=False)

    def prepare(self, old: FileTree) -> None:
        """From now on, candidates are laid out over a copy of ``old`` written once."""
        if self._prepared is None:
            self._prepared = PreparedTree(old)

    @property
    def prepared(self) -> PreparedTree | None:
        return self._prepared

    def lay_out(self, tree: Mapping[str, str], workdir: str) -> None:
        if self._prepared is None:
            super().lay_out(tree, workdir)
        else:
            self._prepared.lay_out(tree, workdir)

    def start(self, tree: Mapping[str, str]) -> Pending:
        pending = super().start(tree)
        prepared = self._prepared
        if prepared is None:
            return pending

        def repaired(verdict: Verdict) -> Verdict:
            prepared.repair()  # before the next candidate links a file this test may have written
            return verdict

        return Converted(pending, repaired)

    def close(self) -> None:
        super().close()
        if self._prepared is not None:
            self._prepared.close()
            self._prepared = None
