"""Which of the project's modules a warm pytest holds imported, which of them a candidate drops, and when to hold again.

The parent's side of selective re-import (``_zygote_held.py`` is the
warm pytest's): a zygote holds the modules its tests import, as one tree
has them, and a candidate's test imports again only the modules whose text
differs from that tree and the modules that hold their objects (an
importer whose imports run at import time, found from the import
statements). A reduction changes one file for many tests at a time (a
pass over one file of the tree), so the tree held is the one the last few
candidates agree on: it is held again when a file they all share differs
from it (the best changed, and the search moved on to another file).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

from astreduce.source.imports import held_modules, modules_of

#: Candidates the held tree is compared with: a file that is the same in all of them, and differs from the tree
#: held, makes the zygote hold again (at most once per this many tests).
WINDOW = 6

#: Holds that may fail (a module that does not import on its own) before holding stops.
FAILED_HOLDS = 3

#: Tests whose re-imports may change a kept module's state (each ties that module to what they dropped) before
#: holding stops.
UNSAFE_TESTS = 8


def _same_text(a: str | None, b: str | None) -> bool:
    return a is b or a == b


@dataclass(frozen=True)
class Holding:
    """The modules one holder imported, as one tree has them."""

    modules: tuple[tuple[str, str], ...]
    """(name, path), in the order the holder imported them."""
    texts: dict[str, str]
    """Path → the text held, for every Python file of the tree (held or not: a module that failed to import, as
    one a held module tries and does without, is still read again by a change)."""
    data: dict[str, str]
    """Path → text of the tree's files that are not Python (a unit table a module reads while it is imported)."""
    holders: dict[str, set[str]]
    """Path → the paths of the Python files that go with it: those that hold its objects (its importers, at import
    time), and those whose state its import changed (``ties``)."""

    @classmethod
    def of(cls, tree: Mapping[str, str], modules: list[tuple[str, str]], ties: Mapping[str, set[str]]) -> Holding:
        names = modules_of(tree)
        texts = {path: text for path, text in tree.items() if path.endswith(".py")}
        holders: dict[str, set[str]] = {path: set() for path in texts}
        for path, text in texts.items():
            for name in held_modules(path, text, names):
                target = names[name]
                if target in holders and target != path:
                    holders[target].add(path)
        for path, tied in ties.items():
            if path in holders:
                holders[path].update(t for t in tied if t in holders and t != path)
        data = {path: text for path, text in tree.items() if not path.endswith(".py")}
        return cls(tuple(modules), texts, data, holders)

    def dropped(self, tree: Mapping[str, str]) -> list[str]:
        """The held modules a test of ``tree`` imports again: those whose text differs, and what holds them; all of
        them when a file that is not Python differs, or a file is new (who reads it, or what it shadows, is not known)."""
        if any(not _same_text(tree.get(p), text) for p, text in self.data.items()) or any(
            p not in self.data and p not in self.texts for p in tree
        ):
            return [name for name, _ in self.modules]
        todo = [p for p, text in self.texts.items() if not _same_text(tree.get(p), text)]
        gone = set(todo)
        while todo:
            for holder in self.holders[todo.pop()]:
                if holder not in gone:
                    gone.add(holder)
                    todo.append(holder)
        return [name for name, path in self.modules if path in gone]


class HeldModules:
    """One zygote's holding: what its tests imported, what it holds, and when it holds again."""

    def __init__(self) -> None:
        self.known: list[tuple[str, str]] = []
        """The project's modules (name, path) the anchor's test imported, in the order it imported them."""
        self.anchor: Mapping[str, str] | None = None
        """The last tree whose test imported its modules without an error: what a holder imports."""
        self.holding: Holding | None = None
        self.ties: dict[str, set[str]] = {}
        """Path → the held modules whose state its import changed: dropped with it from then on."""
        self.window: deque[Mapping[str, str]] = deque(maxlen=WINDOW)
        self.since = 0
        self.failed = 0
        self.unsafe = 0
        self.off = False

    def seen(self, tree: Mapping[str, str], modules: list[list[str]] | None, imported: bool) -> None:
        """A test of ``tree`` ended: the project's modules it imported, and whether every import went through."""
        if imported and modules:
            self.known = [(str(n), str(p)) for n, p in modules]
            self.anchor = tree

    def plan(self, tree: Mapping[str, str]) -> tuple[Mapping[str, str], list[tuple[str, str]]] | None:
        """Before a test of ``tree``: the tree to hold now (the anchor) and its modules to import (``[]``: hold
        none), or None to keep the holding as it is."""
        self.window.append(tree)
        self.since += 1
        if self.off:
            if self.holding is None:
                return None
            self.holding = None
            return tree, []
        if self.anchor is None or self.since < WINDOW:
            return None
        if self.holding is not None:
            held = {p: self.holding.texts[p] for _, p in self.holding.modules}
            stale = [p for p, text in held.items() if not _same_text(tree.get(p), text) and all(_same_text(t.get(p), tree.get(p)) for t in self.window)]
            if not stale:
                return None
        anchor = self.anchor
        modules = [(n, p) for n, p in self.known if p in anchor]
        if not modules:
            return None
        self.holding = Holding.of(anchor, modules, self.ties)
        self.since = 0
        return anchor, modules

    def dropped(self, tree: Mapping[str, str]) -> list[str]:
        return [] if self.holding is None else self.holding.dropped(tree)

    def refused(self) -> None:
        """The holder could not import the modules (it says why): none is held; after a few, holding stops."""
        self.holding = None
        self.failed += 1
        self.off = self.failed >= FAILED_HOLDS

    def tie(self, dropped: list[str], changed: list[str]) -> None:
        """A test that dropped ``dropped`` changed the state of the kept modules ``changed`` by importing them
        again: those go with them from now on (after a few such tests, holding stops)."""
        self.unsafe += 1
        self.off = self.off or self.unsafe >= UNSAFE_TESTS
        holding = self.holding
        if holding is None:
            return
        paths = dict(holding.modules)
        for name in dropped:
            for other in changed:
                if name in paths and other in paths:
                    self.ties.setdefault(paths[name], set()).add(paths[other])
                    holding.holders[paths[name]].add(paths[other])
