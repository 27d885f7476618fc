"""Isolating failure-inducing changes: ``astreduce isolate OLD NEW``.

"Yesterday my program worked; today it does not" (Zeller, ESEC/FSE 1999).
Given a passing OLD version and a failing NEW version of a file (or of a
package directory), this module computes the *changes* between them, applies
subsets of them to OLD and runs general delta debugging in mode ``+-``
(:func:`astreduce.dd.dd`) to find

* a maximal set of changes that still passes (the *passing* version),
* a minimal set that still fails (the *failing* version), and
* their 1-minimal *difference*: removing any one of its changes from the
  failing version makes it pass (or become inconsistent).

Granularity (``--granularity``):

``lines``
    difflib line hunks: every maximal run of changed lines is one change.
``statements``
    syntax-aware: the statement trees of both versions are aligned block by
    block (a def or class matches its namesake, another compound statement
    matches one with the same first line, a simple statement matches the same
    text), recursing into matched compound statements; every change is then
    one statement added, removed or replaced, or one changed header (the
    lines of a compound statement outside its blocks: decorators, signature,
    ``else:`` ...). Comment and blank lines travel with the statement below
    them. Applying every change gives NEW exactly.
``functions``
    the statement changes grouped by their innermost enclosing function or
    class, or else by the module-level statement that holds them: dd+'s
    grouping that cut the GDB study from 470 tests to 97.

Inconsistent configurations — a candidate that does not compile, or raises
another exception — are UNRESOLVED (the exec oracle says so by itself); dd
counts them as neither passing nor failing, as dd+ does.

The difference found by ``+-`` is relative to the passing version; applied
to OLD alone it may not fail, when it uses something that another, harmless
change introduces (a new helper function, a new import). The changes it
needs are then found by ddmin among the passing changes (:attr:`IsolationResult.requires`),
so that OLD plus :attr:`IsolationResult.isolated` — the difference and what
it needs — fails on its own.

Directories: OLD and NEW may be two versions of a package. Changes are
grouped by file first: a file added, removed or changed is one change, and
dd ``+-`` runs over these; then within the files of that difference (added
and removed files stay whole), at the chosen granularity. Every candidate is
materialised as a copy of the tree in a fresh sandbox folder
(:mod:`astreduce.oracles.sandbox`), which is the working directory of

* ``--entry FILE`` (the exec oracle for trees): ``FILE`` (relative to the
  tree) runs as ``__main__`` under ``--python`` with the tree first on
  ``sys.path``; its exception is matched as the exec oracle does (same type
  and message by default, ``--expect``, ``--match``, ``--same-frame``);
* ``--run CMD``: ``{dir}`` is the tree, ``{file}`` the entry file (or the
  tree when there is no ``--entry``), ``{python}`` the interpreter; classified
  as the command oracle does (``--signal``, ``--exit-code``, ``--stderr``,
  ``--stdout``, ``--hang``, or the same ending as NEW);
* ``--test SCRIPT``: the script gets the tree as its argument, exit 0 = fails;
* ``--differential CMD1 CMD2``.

Not for trees: ``--append``, ``--stdin``, ``--retries``. Files that are not
UTF-8 text, or do not parse, are compared by lines (or whole when binary).
"""

from __future__ import annotations

import ast
import difflib
import hashlib
import re
import time
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from astreduce.dd import Outcome, dd
from astreduce.errors import DDPreconditionError, NotReproducibleError, UsageError
from astreduce.measure import measure
from astreduce.oracles import Oracle, Pending, Verdict
from astreduce.oracles.options import OracleOptions, build_oracle
from astreduce.reduce.single import check_match, read_source
from astreduce.files import FileTree, read_tree
from astreduce.oracles.tree import DirectoryOracle, FileOracle, TreeOracleProtocol

Granularity = Literal["lines", "statements", "functions"]
GRANULARITIES: tuple[Granularity, ...] = ("lines", "statements", "functions")



# --- changes ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace ``old[start:end]`` (character offsets into the OLD file) by ``text``."""

    start: int
    end: int
    text: str
    order: int
    """Position among all edits of the file: orders insertions at the same offset."""


@dataclass(frozen=True)
class Change:
    """One element of a configuration: edits to one file, applied together.

    ``presence`` is ``True`` for a file that NEW adds and ``False`` for one it
    removes; ``None`` when the file exists in both versions.
    """

    path: str
    edits: tuple[Edit, ...]
    label: str
    presence: bool | None = None

    def describe(self) -> str:
        return f"{self.path}: {self.label}" if self.path else self.label


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """``text`` with ``edits`` (non-overlapping spans of it) applied."""
    parts: list[str] = []
    position = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.order)):
        if edit.start < position:
            raise ValueError(f"overlapping edits at offset {edit.start}")
        parts.append(text[position : edit.start])
        parts.append(edit.text)
        position = edit.end
    parts.append(text[position:])
    return "".join(parts)


def apply_changes(old: Mapping[str, str], changes: Iterable[Change]) -> FileTree:
    """The tree ``old`` with ``changes`` applied (the others left as in ``old``)."""
    edits: dict[str, list[Edit]] = {}
    presence: dict[str, bool] = {}
    for change in changes:
        edits.setdefault(change.path, []).extend(change.edits)
        if change.presence is not None:
            presence[change.path] = change.presence
    result = dict(old)
    for path, chosen in edits.items():
        if presence.get(path) is False:
            result.pop(path, None)
        elif path in old or presence.get(path):
            result[path] = apply_edits(old.get(path, ""), chosen)
    return result


def _line_offsets(lines: Sequence[str]) -> list[int]:
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    return offsets


def line_changes(old: str, new: str, path: str = "") -> list[Change]:
    """difflib's line hunks: every maximal run of changed lines is one change."""
    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    offsets = _line_offsets(a)
    changes = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for order, (tag, i1, i2, j1, j2) in enumerate(op for op in matcher.get_opcodes() if op[0] != "equal"):
        edit = Edit(offsets[i1], offsets[i2], "".join(b[j1:j2]), order)
        where = f"line {i1 + 1}" if i2 - i1 <= 1 else f"lines {i1 + 1}-{i2}"
        verb = {"replace": "replaced", "delete": "removed", "insert": "added before"}[tag]
        if tag == "insert":
            where = f"line {i1 + 1}" if i1 < len(a) else "the end"
        changes.append(Change(path, (edit,), f"{verb} {where} (+{j2 - j1} -{i2 - i1})"))
    return changes


# --- statement trees ----------------------------------------------------------


@dataclass
class _Unit:
    """A statement (or statements sharing a line) with the comment lines above it."""

    first: int
    """First line (0-based), attached comment and blank lines included."""
    start: int
    """First line of the statement itself (its first decorator for a def)."""
    last: int
    """End line, exclusive."""
    key: tuple[str, str]
    name: str | None
    """The name of a def or class."""
    blocks: list[tuple[str, list[_Unit]]] | None
    """The statement's blocks (body, orelse, a handler's body ...), or None when atomic."""


def _is_filler(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


class _Side:
    """One version of a file as lines and statement units."""

    def __init__(self, text: str, tree: ast.Module) -> None:
        self.lines = text.splitlines(keepends=True)
        self.offsets = _line_offsets(self.lines)
        self.units = self._block(tree.body, 0)

    def text(self, first: int, last: int) -> str:
        return "".join(self.lines[first:last])

    def _starts_line(self, node: ast.stmt) -> bool:
        line = self.lines[node.lineno - 1]
        return _column_prefix(line, node.col_offset).strip() == ""

    def _block(self, statements: list[ast.stmt], floor: int) -> list[_Unit]:
        groups: list[list[ast.stmt]] = []
        for statement in statements:
            if groups and _first_line(statement) < _end_line(groups[-1][-1]):
                groups[-1].append(statement)  # statements sharing a line (``a = 1; b = 2``)
            else:
                groups.append([statement])
        units = []
        previous = floor
        for group in groups:
            start = _first_line(group[0])
            first = start
            while first > previous and _is_filler(self.lines[first - 1]):
                first -= 1
            unit = self._unit(group, first, start, _end_line(group[-1]))
            units.append(unit)
            previous = unit.last
        return units

    def _unit(self, group: list[ast.stmt], first: int, start: int, last: int) -> _Unit:
        node = group[0]
        if len(group) > 1:
            return _Unit(first, start, last, ("statements", self.text(start, last)), None, None)
        name: str | None = None
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            key, name = ("def", node.name), node.name
        elif isinstance(node, ast.ClassDef):
            key, name = ("class", node.name), node.name
        else:
            key = (type(node).__name__, self.text(start, last) if not _blocks_of(node) else self.lines[start].strip())
        blocks: list[tuple[str, list[_Unit]]] | None = None
        found = _blocks_of(node)
        if found and all(self._starts_line(block[0]) for _, block in found):
            blocks = []
            floor = start
            for kind, statements in found:
                units = self._block(statements, floor)
                blocks.append((kind, units))
                floor = units[-1].last
        return _Unit(first, start, last, key, name, blocks)


def _column_prefix(line: str, col_offset: int) -> str:
    """The characters of ``line`` before the UTF-8 byte offset ``col_offset``."""
    return line.encode("utf-8", errors="surrogateescape")[:col_offset].decode("utf-8", errors="replace")


def _first_line(node: ast.stmt) -> int:
    """The statement's first line (0-based), its decorators included."""
    first = node.lineno
    for decorator in getattr(node, "decorator_list", None) or []:
        first = min(first, int(decorator.lineno))
    return first - 1


def _end_line(node: ast.stmt) -> int:
    return node.end_lineno if node.end_lineno is not None else node.lineno


def _blocks_of(node: ast.stmt) -> list[tuple[str, list[ast.stmt]]]:
    """The statement lists inside ``node`` in source order, each with its field's name."""
    blocks: list[tuple[str, list[ast.stmt]]] = []
    for name, value in ast.iter_fields(node):
        if not isinstance(value, list) or not value:
            continue
        if isinstance(value[0], ast.stmt):
            blocks.append((name, value))
        else:
            for item in value:
                body = getattr(item, "body", None)
                if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                    blocks.append((name, body))
    blocks.sort(key=lambda block: (block[1][0].lineno, block[1][0].col_offset))
    return blocks


def _parse(text: str) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an old module's invalid escapes are not our warnings
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


@dataclass
class _Emitted:
    edit: Edit
    group: str
    label: str
    scope: str


class _Aligner:
    """Aligns two statement trees and emits the edits that turn OLD into NEW.

    Every edit gets a group for the ``functions`` granularity: everything in a
    function's body (nested blocks included) goes with the function; in a
    module or class body, each run of consecutive statements added, removed
    or replaced together is a group, and so is each compound statement
    changed inside (an ``if`` at module level, a class's own header).
    """

    def __init__(self, old: _Side, new: _Side) -> None:
        self.old = old
        self.new = new
        self.emitted: list[_Emitted] = []

    def run(self) -> None:
        old, new = self.old, self.new
        old_head = old.units[0].first if old.units else 0
        new_head = new.units[0].first if new.units else 0
        self._gap(0, old_head, 0, new_head, None, None, "comments at the top")
        old_end = old.units[-1].last if old.units else old_head
        self._block(old.units, new.units, old_end, None, None)
        new_end = new.units[-1].last if new.units else new_head
        self._gap(old_end, len(old.lines), new_end, len(new.lines), None, None, "comments at the end")

    def _emit(
        self, first: int, last: int, new_first: int, new_last: int, group: str | None, label: str, scope: str | None, line: int | None = None
    ) -> None:
        order = len(self.emitted)
        edit = Edit(self.old.offsets[first], self.old.offsets[last], self.new.text(new_first, new_last), order)
        where = scope or "module"
        line = first if line is None else line
        self.emitted.append(_Emitted(edit, group or f"#{order}", f"{label} (line {line + 1}, in {where})", where))

    def _gap(
        self, first: int, last: int, new_first: int, new_last: int, group: str | None, scope: str | None, label: str, line: int | None = None
    ) -> None:
        if self.old.lines[first:last] != self.new.lines[new_first:new_last]:
            self._emit(first, last, new_first, new_last, group, label, scope, line)

    def _block(self, olds: list[_Unit], news: list[_Unit], end: int, scope: str | None, group: str | None) -> None:
        """Align one block; ``group`` is the function holding it (``None`` in a module or class body)."""
        matcher = difflib.SequenceMatcher(None, [u.key for u in olds], [u.key for u in news], autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                for old, new in zip(olds[i1:i2], news[j1:j2]):
                    self._pair(old, new, scope, group)
                continue
            line = (olds[i1].start if i1 < len(olds) else end) + 1
            run = group or f"{scope or 'module'}: statements from line {line}"
            paired = min(i2 - i1, j2 - j1)
            for old, new in zip(olds[i1 : i1 + paired], news[j1 : j1 + paired]):
                self._emit(old.first, old.last, new.first, new.last, run, f"replaced {_headline(self.old, old)}", scope, old.start)
            for old in olds[i1 + paired : i2]:
                self._emit(old.first, old.last, old.first, old.first, run, f"removed {_headline(self.old, old)}", scope, old.start)
            if j1 + paired < j2:
                at = olds[i2 - 1].last if i2 > i1 else (olds[i1].first if i1 < len(olds) else end)
                for new in news[j1 + paired : j2]:
                    self._emit_insert(at, new, run, scope)

    def _emit_insert(self, at: int, new: _Unit, group: str, scope: str | None) -> None:
        order = len(self.emitted)
        edit = Edit(self.old.offsets[at], self.old.offsets[at], self.new.text(new.first, new.last), order)
        where = scope or "module"
        label = f"added {_headline(self.new, new)} (before line {at + 1}, in {where})"
        self.emitted.append(_Emitted(edit, group, label, where))

    def _pair(self, old: _Unit, new: _Unit, scope: str | None, group: str | None) -> None:
        if self.old.lines[old.first : old.last] == self.new.lines[new.first : new.last]:
            return
        qualified = f"{scope}.{old.name}" if scope and old.name else (old.name or "")
        own: str
        inner_scope: str | None
        inner_group: str | None
        if old.key[0] == "def":
            inner_scope, inner_group, own = qualified, group or f"def {qualified}", group or f"def {qualified}"
        elif old.key[0] == "class":
            inner_scope, inner_group, own = qualified, group, group or f"class {qualified}"
        else:
            own = group or f"{scope or 'module'}: statement at line {old.start + 1}"
            inner_scope, inner_group = scope, own
        if old.blocks is None or new.blocks is None or [k for k, _ in old.blocks] != [k for k, _ in new.blocks]:
            self._emit(old.first, old.last, new.first, new.last, own, f"replaced {_headline(self.old, old)}", scope, old.start)
            return
        header = f"header of {_headline(self.old, old)}"
        previous_old, previous_new = old.first, new.first
        line: int | None = old.start  # the first gap is the header; later ones start where they are
        for (_, old_units), (_, new_units) in zip(old.blocks, new.blocks):
            self._gap(previous_old, old_units[0].first, previous_new, new_units[0].first, own, inner_scope, header, line)
            line = None
            self._block(old_units, new_units, old_units[-1].last, inner_scope, inner_group)
            previous_old, previous_new = old_units[-1].last, new_units[-1].last
        self._gap(previous_old, old.last, previous_new, new.last, own, inner_scope, header)


def _headline(side: _Side, unit: _Unit) -> str:
    text = side.lines[unit.start].strip() if unit.start < len(side.lines) else ""
    return f"`{text[:60]}{'...' if len(text) > 60 else ''}`"


def statement_changes(old: str, new: str, path: str = "", *, by_function: bool = False) -> list[Change] | None:
    """Syntax-aware changes (see the module docstring); ``None`` when a version does not parse.

    With ``by_function`` the statement changes are grouped by their innermost
    enclosing function or class, or else by their module-level statement.
    """
    old_tree, new_tree = _parse(old), _parse(new)
    if old_tree is None or new_tree is None:
        return None
    aligner = _Aligner(_Side(old, old_tree), _Side(new, new_tree))
    aligner.run()
    if not by_function:
        return [Change(path, (e.edit,), e.label) for e in aligner.emitted]
    groups: dict[str, list[_Emitted]] = {}
    for emitted in aligner.emitted:
        groups.setdefault(emitted.group, []).append(emitted)
    changes = []
    for key, members in groups.items():
        if len(members) == 1:
            label = members[0].label
        else:
            label = f"{key}: {len(members)} changes"
        changes.append(Change(path, tuple(m.edit for m in members), label))
    return changes


def file_changes(old: str, new: str, granularity: Granularity, path: str = "", *, python_only: bool = False) -> list[Change]:
    """The changes that turn ``old`` into ``new``; by lines when a version does not parse.

    With ``python_only`` (files of a tree) only ``.py`` and ``.pyw`` files are read as Python.
    """
    if granularity not in GRANULARITIES:
        raise UsageError(f"unknown granularity {granularity!r}; choose from {', '.join(GRANULARITIES)}")
    if granularity != "lines" and (not python_only or path.endswith((".py", ".pyw"))):
        found = statement_changes(old, new, path, by_function=granularity == "functions")
        if found is not None:
            return found
    return line_changes(old, new, path)


def tree_changes(old: Mapping[str, str], new: Mapping[str, str]) -> list[Change]:
    """One change per file added, removed or changed, in path order."""
    changes = []
    for path in sorted(set(old) | set(new)):
        before, after = old.get(path), new.get(path)
        if before == after:
            continue
        if before is None:
            changes.append(Change(path, (Edit(0, 0, after or "", 0),), "file added", presence=True))
        elif after is None:
            changes.append(Change(path, (Edit(0, len(before), "", 0),), "file removed", presence=False))
        else:
            changes.append(Change(path, (Edit(0, len(before), after, 0),), "file changed"))
    return changes


# --- diffs --------------------------------------------------------------------


def unified_diff(before: Mapping[str, str], after: Mapping[str, str], context: int = 3) -> str:
    """A unified diff (``a/PATH``, ``b/PATH``; ``patch -p1`` applies it) of two trees."""
    out: list[str] = []
    for path in sorted(set(before) | set(after)):
        a, b = before.get(path), after.get(path)
        if a == b:
            continue
        lines = difflib.unified_diff(
            (a or "").splitlines(keepends=True),
            (b or "").splitlines(keepends=True),
            fromfile=f"a/{path}" if a is not None else "/dev/null",
            tofile=f"b/{path}" if b is not None else "/dev/null",
            n=context,
        )
        for line in lines:
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def changed_lines(before: Mapping[str, str], after: Mapping[str, str]) -> int:
    """Lines removed plus lines added between two trees."""
    total = 0
    for path in set(before) | set(after):
        a = (before.get(path) or "").splitlines()
        b = (after.get(path) or "").splitlines()
        matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
        total += sum((i2 - i1) + (j2 - j1) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal")
    return total


# --- the search ---------------------------------------------------------------


def _digest(tree: Mapping[str, str]) -> bytes:
    digest = hashlib.blake2b(digest_size=20)
    for path in sorted(tree):
        for part in (path, tree[path]):
            data = part.encode("utf-8", errors="surrogateescape")
            digest.update(len(data).to_bytes(8, "little"))
            digest.update(data)
    return digest.digest()


class _Evaluator:
    """Outcomes of candidate trees: a cache by content, counters, ``jobs`` tests at once.

    Outcomes come in the caller's order whatever finishes first, so dd
    decides the same for every ``jobs`` (see :mod:`astreduce.dd.runner`);
    when dd stops reading, the candidates still running are cancelled.
    """

    def __init__(self, oracle: TreeOracleProtocol, jobs: int) -> None:
        self.oracle = oracle
        self.jobs = jobs
        self.cache: dict[bytes, Outcome] = {}
        self.tests = 0
        self.cache_hits = 0
        self.unresolved = 0
        self.oracle_seconds = 0.0
        self.speculative = 0

    def remember(self, tree: Mapping[str, str], outcome: Outcome) -> None:
        self.cache[_digest(tree)] = outcome

    def _record(self, key: bytes, started: float, verdict: Verdict) -> Outcome:
        self.oracle_seconds += time.monotonic() - started
        self.tests += 1
        if verdict.outcome is Outcome.UNRESOLVED:
            self.unresolved += 1
        self.cache[key] = verdict.outcome
        return verdict.outcome

    def outcome(self, tree: Mapping[str, str]) -> Outcome:
        key = _digest(tree)
        if key in self.cache:
            self.cache_hits += 1
            return self.cache[key]
        started = time.monotonic()
        return self._record(key, started, self.oracle.judge(tree))

    def outcomes(self, trees: Iterable[Mapping[str, str]]) -> Iterator[Outcome]:
        if self.jobs <= 1:
            for tree in trees:
                yield self.outcome(tree)
            return
        source = iter(trees)
        window: deque[tuple[bytes, Mapping[str, str], Pending | None]] = deque()
        running: dict[bytes, Pending] = {}
        exhausted = False
        try:
            while True:
                while not exhausted and len(running) < self.jobs:
                    try:
                        tree = next(source)
                    except StopIteration:
                        exhausted = True
                        break
                    key = _digest(tree)
                    if key in self.cache or key in running:
                        window.append((key, tree, None))  # known, or started earlier in the window
                    else:
                        job = self.oracle.start(tree)
                        running[key] = job
                        window.append((key, tree, job))
                if not window:
                    return
                key, tree, pending = window.popleft()
                if pending is None:
                    yield self.outcome(tree)  # the earlier one has finished by now: a cache hit
                    continue
                started = time.monotonic()
                verdict = pending.wait()
                running.pop(key, None)
                yield self._record(key, started, verdict)
        finally:
            for pending in running.values():
                pending.cancel()
            self.speculative += len(running)


@dataclass
class LevelStats:
    """Figures of one dd run: over files, or over the changes within them."""

    name: str
    """``files``, the granularity, or ``requires``."""
    changes: int
    tests: int
    cache_hits: int
    difference: int
    """Changes found: the difference (``requires``: the changes it needs)."""
    seconds: float


@dataclass
class IsolationResult:
    """What :func:`isolate` and :func:`isolate_trees` found.

    Trees map relative paths to texts; for a single file the tree has one
    entry and ``*_text`` give its text.
    """

    granularity: str
    old: FileTree
    new: FileTree
    changes: list[Change]
    """Every change of the last level (within files; for trees, after the file level)."""
    passing_changes: list[Change]
    """Changes applied to OLD in the maximal passing version (all levels)."""
    difference: list[Change]
    """The 1-minimal failure-inducing difference: failing = passing + difference."""
    requires: list[Change]
    """Passing changes the difference needs to fail when applied to OLD alone (often none)."""
    passing: FileTree
    failing: FileTree
    isolated: FileTree
    """OLD with the difference and the changes it requires: fails on its own."""
    tests: int
    cache_hits: int
    unresolved: int
    seconds: float
    oracle_seconds: float
    levels: list[LevelStats]
    single: str | None = None
    """The file's name when OLD and NEW are files."""
    verified: bool = False
    """The passing version was re-run and passes, the failing and isolated ones fail."""

    @property
    def diff(self) -> str:
        """The 1-minimal difference as a unified diff: passing → failing."""
        return unified_diff(self.passing, self.failing)

    @property
    def isolated_diff(self) -> str:
        """OLD → OLD with the isolated changes: a patch that alone makes OLD fail."""
        return unified_diff(self.old, self.isolated)

    @property
    def diff_lines(self) -> int:
        """Lines removed plus lines added by :attr:`diff`."""
        return changed_lines(self.passing, self.failing)

    def _text(self, tree: FileTree) -> str:
        if self.single is None:
            raise ValueError("OLD and NEW are directories: use the trees")
        return tree.get(self.single, "")

    @property
    def passing_text(self) -> str:
        return self._text(self.passing)

    @property
    def failing_text(self) -> str:
        return self._text(self.failing)

    @property
    def isolated_text(self) -> str:
        return self._text(self.isolated)


def isolate(
    old_text: str,
    new_text: str,
    oracle: Oracle,
    granularity: Granularity = "functions",
    *,
    jobs: int = 1,
    filename: str = "candidate.py",
) -> IsolationResult:
    """Isolate the changes from ``old_text`` (passes) to ``new_text`` (fails) that make it fail.

    Args:
        oracle: judges a candidate text; for the exec oracle build it on NEW
            (``build_oracle(options, new_text, filename=...)``), whose
            exception is the target.
        granularity: ``lines``, ``statements`` or ``functions``.
        jobs: candidates tested at once; the result is the same for every value.
        filename: the file's name (decides whether it is Python, names it in diffs).

    Raises:
        NotReproducibleError: OLD does not pass or NEW does not fail.
        UsageError: an unknown granularity, or OLD equals NEW.
    """
    name = filename or "candidate.py"
    return isolate_trees({name: old_text}, {name: new_text}, FileOracle(oracle, name), granularity, jobs=jobs, single=name)


def isolate_trees(
    old: Mapping[str, str],
    new: Mapping[str, str],
    oracle: TreeOracleProtocol,
    granularity: Granularity = "functions",
    *,
    jobs: int = 1,
    single: str | None = None,
) -> IsolationResult:
    """:func:`isolate` for two versions of a package (``read_tree``): by files, then within them.

    Raises:
        NotReproducibleError: OLD does not pass or NEW does not fail.
        UsageError: an unknown granularity, or OLD equals NEW.
    """
    started = time.monotonic()
    if granularity not in GRANULARITIES:
        raise UsageError(f"unknown granularity {granularity!r}; choose from {', '.join(GRANULARITIES)}")
    if jobs < 1:
        raise UsageError("-j must be at least 1")
    old, new = dict(old), dict(new)
    if old == new:
        raise UsageError("OLD and NEW are identical: there are no changes to isolate")
    evaluator = _Evaluator(oracle, jobs)
    checked = oracle.judge(new)
    if checked.outcome is not Outcome.FAIL:
        raise NotReproducibleError(f"NEW does not fail: the oracle says {checked.outcome} ({checked.run.describe()})")
    checked = oracle.judge(old)
    if checked.outcome is not Outcome.PASS:
        raise NotReproducibleError(f"OLD does not pass: the oracle says {checked.outcome} ({checked.run.describe()})")
    evaluator.remember(new, Outcome.FAIL)
    evaluator.remember(old, Outcome.PASS)
    levels: list[LevelStats] = []
    base: list[Change] = []
    if single is None:
        files = tree_changes(old, new)
        passing, difference = _level("files", old, [], files, evaluator, levels)
        base = passing
        elements: list[Change] = []
        for change in difference:
            before, after = old.get(change.path, ""), new.get(change.path, "")
            if change.presence is None and "\0" not in before + after:
                elements += file_changes(before, after, granularity, change.path, python_only=True)
            else:  # added, removed, or binary: the file stays whole
                elements.append(change)
    else:
        elements = file_changes(old[single], new[single], granularity, single)
    passing, difference = _level(granularity, old, base, elements, evaluator, levels)
    passing_changes = base + passing
    requires = _requirements(old, passing_changes, difference, evaluator, levels)
    order = {id(c): i for i, c in enumerate(passing_changes + difference)}
    isolated_changes = sorted(requires + difference, key=lambda c: order[id(c)])
    result = IsolationResult(
        granularity=granularity,
        old=old,
        new=new,
        changes=elements,
        passing_changes=passing_changes,
        difference=difference,
        requires=requires,
        passing=apply_changes(old, passing_changes),
        failing=apply_changes(old, passing_changes + difference),
        isolated=apply_changes(old, isolated_changes),
        tests=evaluator.tests,
        cache_hits=evaluator.cache_hits,
        unresolved=evaluator.unresolved,
        seconds=0.0,
        oracle_seconds=evaluator.oracle_seconds,
        levels=levels,
        single=single,
    )
    result.verified = (
        oracle.judge(result.passing).outcome is Outcome.PASS
        and oracle.judge(result.failing).outcome is Outcome.FAIL
        and (result.isolated == result.failing or oracle.judge(result.isolated).outcome is Outcome.FAIL)
    )
    result.seconds = time.monotonic() - started
    return result


def _level(
    name: str,
    old: FileTree,
    base: list[Change],
    elements: list[Change],
    evaluator: _Evaluator,
    levels: list[LevelStats],
) -> tuple[list[Change], list[Change]]:
    """dd ``+-`` over ``elements`` applied to OLD on top of ``base``: (passing, difference)."""
    started = time.monotonic()
    tests = evaluator.tests
    hits = evaluator.cache_hits

    def build(config: Sequence[Change]) -> FileTree:
        return apply_changes(old, [*base, *config])

    def test(config: Sequence[Change]) -> Outcome:
        return evaluator.outcome(build(config))

    def batch(configs: list[Sequence[Change]]) -> Iterator[Outcome]:
        return evaluator.outcomes(build(config) for config in configs)

    try:
        found = dd(elements, test, "+-", batch=batch if evaluator.jobs > 1 else None)
    except DDPreconditionError as error:  # the ends were checked: the oracle is not deterministic
        raise NotReproducibleError(f"the oracle changed its mind about OLD or NEW ({error}); is it flaky?") from None
    evaluator.cache_hits += found.cache_hits  # configurations dd answered from its own cache
    levels.append(
        LevelStats(name, len(elements), evaluator.tests - tests, evaluator.cache_hits - hits, len(found.difference), time.monotonic() - started)
    )
    return list(found.passing), list(found.difference)


#: Up to this many candidate requirements are trimmed one at a time; more go to ddmin.
TRIM_LIMIT = 8


def _requirements(
    old: FileTree,
    passing: list[Change],
    difference: list[Change],
    evaluator: _Evaluator,
    levels: list[LevelStats],
) -> list[Change]:
    """A 1-minimal subset of ``passing`` that ``difference`` needs to fail on OLD alone.

    Usually there is none (one test says so). When there is, it is most often
    a definition the difference uses — a new helper, a new import — so the
    first guess is the passing changes that define a name the difference
    uses, closed under the names they use in turn (grouping by identifier,
    as dd+ suggests); ddmin then trims the guess, or, when the guess does not
    fail, searches all passing changes.
    """
    started = time.monotonic()
    tests = evaluator.tests
    hits = evaluator.cache_hits
    if not passing or evaluator.outcome(apply_changes(old, difference)) is Outcome.FAIL:
        levels.append(LevelStats("requires", len(passing), evaluator.tests - tests, evaluator.cache_hits - hits, 0, time.monotonic() - started))
        return []

    def test(config: Sequence[Change]) -> Outcome:
        return evaluator.outcome(apply_changes(old, [*config, *difference]))

    def batch(configs: list[Sequence[Change]]) -> Iterator[Outcome]:
        return evaluator.outcomes(apply_changes(old, [*config, *difference]) for config in configs)

    pool = passing
    guess = _definitions_used(old, passing, difference)
    if guess and len(guess) < len(passing) and test(guess) is Outcome.FAIL:
        pool = guess
    if len(pool) <= TRIM_LIMIT:
        # few changes, most of them needed: one removal at a time beats ddmin's halving
        required = _trim(pool, lambda config: evaluator.outcomes(apply_changes(old, [*c, *difference]) for c in config))
    else:
        try:
            found = dd(pool, test, "-", batch=batch if evaluator.jobs > 1 else None)
            evaluator.cache_hits += found.cache_hits
            required = list(found.failing)
        except DDPreconditionError as error:
            raise NotReproducibleError(f"the oracle changed its mind about the failing version ({error}); is it flaky?") from None
    levels.append(
        LevelStats("requires", len(passing), evaluator.tests - tests, evaluator.cache_hits - hits, len(required), time.monotonic() - started)
    )
    return required


def _trim(changes: list[Change], outcomes: Callable[[list[list[Change]]], Iterator[Outcome]]) -> list[Change]:
    """Remove one change at a time, in one sweep, while the rest still FAILs.

    Each kept change was needed when it was tried (against a superset of the
    result), so the result is 1-minimal when the oracle is monotone on these
    configurations; a second sweep would cost as many tests as changes kept.
    The remaining removals go to ``outcomes`` as one ordered batch; the first
    that FAILs is taken and the sweep goes on from there.
    """
    kept = list(changes)
    position = 0
    while position < len(kept) and len(kept) > 1:
        trials = [kept[:i] + kept[i + 1 :] for i in range(position, len(kept))]
        results = outcomes(trials)
        found = None
        try:
            for offset, outcome in enumerate(results):
                if outcome is Outcome.FAIL:
                    found = offset
                    break
        finally:
            close = getattr(results, "close", None)
            if close is not None:
                close()
        if found is None:
            break
        kept = trials[found]
        position += found
    return kept


_DEFINITION = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)", re.MULTILINE)
_ASSIGNMENT = re.compile(r"^(\w+)[ \t]*(?::[^=\n]*)?=(?!=)", re.MULTILINE)
_IMPORT = re.compile(r"^(?:from[ \t]+[\w.]+[ \t]+)?import[ \t]+(\([^)]*\)|[^\n#;]+)", re.MULTILINE)
_NAME = re.compile(r"[A-Za-z_]\w*")


def _defined_names(texts: Iterable[str]) -> set[str]:
    """Names some texts bind: defs and classes, module-level assignments, imports."""
    names: set[str] = set()
    for text in texts:
        names.update(_DEFINITION.findall(text))
        names.update(_ASSIGNMENT.findall(text))
        for imported in _IMPORT.findall(text):
            for part in imported.strip("() \t\n").split(","):
                words = part.split()
                if words:
                    names.add(words[-1] if len(words) >= 3 and words[-2] == "as" else words[0].split(".")[0])
    return names


def _used_names(texts: Iterable[str]) -> set[str]:
    return {name for text in texts for name in _NAME.findall(text)}


def _definitions_used(old: FileTree, passing: list[Change], difference: list[Change]) -> list[Change]:
    """The passing changes that the difference needs by name, transitively.

    A change is needed when its new text defines a name that needed new text
    uses, or when the text it replaces uses a name that a needed change no
    longer defines (a rename: the old uses must go too).
    """

    def new_texts(change: Change) -> list[str]:
        return [edit.text for edit in change.edits]

    def old_texts(change: Change) -> list[str]:
        base = old.get(change.path, "")
        return [base[edit.start : edit.end] for edit in change.edits]

    needed: set[str] = set()
    removed: set[str] = set()

    def take(change: Change) -> None:
        needed.update(_used_names(new_texts(change)))
        removed.update(_defined_names(old_texts(change)) - _defined_names(new_texts(change)))

    for change in difference:
        take(change)
    chosen: list[Change] = []
    remaining = list(passing)
    grew = True
    while grew:
        grew = False
        for change in list(remaining):
            if _defined_names(new_texts(change)) & needed or _used_names(old_texts(change)) & removed:
                chosen.append(change)
                remaining.remove(change)
                take(change)
                grew = True
    order = {id(c): i for i, c in enumerate(passing)}
    return sorted(chosen, key=lambda c: order[id(c)])


# --- files and folders --------------------------------------------------------


def isolate_paths(
    old: Path,
    new: Path,
    options: OracleOptions,
    granularity: Granularity = "functions",
    *,
    jobs: int = 1,
    entry: str | None = None,
) -> IsolationResult:
    """Isolate between two files or two folders, building the oracle from ``options`` on NEW.

    Raises:
        UsageError: unreadable inputs, a file and a folder, bad options.
        NotReproducibleError: OLD does not pass or NEW does not fail.
    """
    for path in (old, new):
        if not path.exists():
            raise UsageError(f"{path}: no such file or directory")
    if old.is_dir() != new.is_dir():
        raise UsageError(f"{old} and {new}: give two files or two directories, not one of each")
    options.check()
    check_match(options.match)
    if options.expect is not None and not options.expect.strip():
        raise UsageError("--expect needs an exception name like AssertionError[:message], not an empty string")
    if jobs < 1:
        raise UsageError("-j must be at least 1")
    if old.is_dir():
        old_tree, new_tree = read_tree(old), read_tree(new)
        oracle = DirectoryOracle(options, entry)
        oracle.calibrate(new_tree)
        return isolate_trees(old_tree, new_tree, oracle, granularity, jobs=jobs)
    if entry is not None:
        raise UsageError("--entry goes with directories; for files the file itself runs")
    old_source, new_source = read_source(old), read_source(new)
    if old_source.text == new_source.text:
        raise UsageError("OLD and NEW are identical: there are no changes to isolate")
    try:
        text_oracle = build_oracle(
            options, new_source.text, filename=new.name, search_path=str(new.resolve().parent), encode=new_source.encode
        )
    except NotReproducibleError as error:
        reason = str(error).removeprefix("input does not reproduce: ").replace("exception to reduce for", "exception to isolate for")
        raise NotReproducibleError(f"NEW does not fail: {reason}") from None
    try:
        return isolate(old_source.text, new_source.text, text_oracle, granularity, jobs=jobs, filename=new.name)
    finally:
        close = getattr(text_oracle, "close", None)
        if close is not None:
            close()


def _size(tree: Mapping[str, str]) -> dict[str, int]:
    sizes = [measure(text) for text in tree.values()]
    return {
        "files": len(tree),
        "bytes": sum(s.bytes for s in sizes),
        "lines": sum(s.lines for s in sizes),
        "tokens": sum(s.tokens for s in sizes),
    }


def report_dict(result: IsolationResult, old: str, new: str, outputs: Mapping[str, str]) -> dict[str, Any]:
    """The ``--report`` JSON of an isolation."""
    return {
        "old": old,
        "new": new,
        "granularity": result.granularity,
        "changes": len(result.changes),
        "tests": result.tests,
        "cache_hits": result.cache_hits,
        "unresolved": result.unresolved,
        "seconds": round(result.seconds, 3),
        "oracle_seconds": round(result.oracle_seconds, 3),
        "levels": [
            {"name": s.name, "changes": s.changes, "tests": s.tests, "cache_hits": s.cache_hits, "result": s.difference, "seconds": round(s.seconds, 3)}
            for s in result.levels
        ],
        "diff_lines": result.diff_lines,
        "difference": {"changes": len(result.difference), "lines": result.diff_lines, "labels": [c.describe() for c in result.difference]},
        "requires": {"changes": len(result.requires), "labels": [c.describe() for c in result.requires]},
        "passing": {**_size(result.passing), "changes": len(result.passing_changes), "path": outputs.get("passing")},
        "failing": {**_size(result.failing), "changes": len(result.passing_changes) + len(result.difference), "path": outputs.get("failing")},
        "isolated": {
            **_size(result.isolated),
            "changes": len(result.difference) + len(result.requires),
            "lines": changed_lines(result.old, result.isolated),
            "path": outputs.get("isolated"),
        },
        "old_size": _size(result.old),
        "new_size": _size(result.new),
        "verified": result.verified,
    }


__all__ = [
    "GRANULARITIES",
    "Change",
    "DirectoryOracle",
    "Edit",
    "FileOracle",
    "Granularity",
    "IsolationResult",
    "LevelStats",
    "TreeOracleProtocol",
    "apply_changes",
    "apply_edits",
    "changed_lines",
    "file_changes",
    "isolate",
    "isolate_paths",
    "isolate_trees",
    "line_changes",
    "read_tree",
    "statement_changes",
    "tree_changes",
    "unified_diff",
]
