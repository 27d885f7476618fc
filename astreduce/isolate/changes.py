"""The change model of ``astreduce isolate``: what a change is and how changes apply.

A :class:`Change` is one element of dd's configurations: edits to one file
(spans of the OLD text and their replacements) that go in or out together,
or a whole file added or removed. Any subset of the changes between two
versions applies to OLD (:func:`apply_changes`) and all of them give NEW.
Here live the changes that need no syntax: difflib's line hunks
(:func:`line_changes`) and one change per file of a tree
(:func:`tree_changes`); the syntax-aware ones come from
:mod:`astreduce.isolate.align`. The diffs of two trees (:func:`unified_diff`,
:func:`changed_lines`) close the module: they are how a result is shown.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from astreduce.files import FileTree

Granularity = Literal["lines", "statements", "functions"]
GRANULARITIES: tuple[Granularity, ...] = ("lines", "statements", "functions")


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace ``old[start:end]`` (character offsets into the OLD file) by ``text``."""

    start: int
    end: int
    text: str
    order: int
    """Position among all edits of the file: orders insertions at the same offset."""
    new_line: int = -1
    """The line (0-based) of NEW's file where ``text`` starts, when the edit comes from NEW (-1: unknown)."""


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
    parts: tuple[Change, ...] = ()
    """For a group (a directory, the changes no run executes): its members, applied together; its own edits are none."""

    def describe(self) -> str:
        return f"{self.path}: {self.label}" if self.path else self.label

    @property
    def members(self) -> tuple[Change, ...]:
        """The changes this one stands for: its parts, recursively, or itself."""
        if not self.parts:
            return (self,)
        return tuple(member for part in self.parts for member in part.members)


def grouped(path: str, label: str, parts: Sequence[Change]) -> Change:
    """One change made of ``parts`` (dd tries them together): a directory's files, the changes no run executes."""
    return Change(path, (), label, parts=tuple(parts))


def flatten(changes: Iterable[Change]) -> list[Change]:
    """The members of ``changes``, groups opened, in order."""
    return [member for change in changes for member in change.members]


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
    for change in flatten(changes):
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


def line_offsets(lines: Sequence[str]) -> list[int]:
    """The character offset where each line starts, and the end."""
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    return offsets


def line_changes(old: str, new: str, path: str = "") -> list[Change]:
    """difflib's line hunks: every maximal run of changed lines is one change."""
    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    offsets = line_offsets(a)
    changes = []
    for order, (tag, i1, i2, j1, j2) in enumerate(op for op in matcher(a, b).get_opcodes() if op[0] != "equal"):
        edit = Edit(offsets[i1], offsets[i2], "".join(b[j1:j2]), order)
        where = f"line {i1 + 1}" if i2 - i1 <= 1 else f"lines {i1 + 1}-{i2}"
        verb = {"replace": "replaced", "delete": "removed", "insert": "added before"}[tag]
        if tag == "insert":
            where = f"line {i1 + 1}" if i1 < len(a) else "the end"
        changes.append(Change(path, (edit,), f"{verb} {where} (+{j2 - j1} -{i2 - i1})"))
    return changes


def one_line_changes(old: str, new: str, path: str = "") -> list[Change]:
    """One change per line removed or added: the changed lines of :func:`unified_diff`, each on its own.

    The lines are those :func:`unified_diff` shows (:func:`matcher`). A removal taken alone keeps the line
    (a context line in the patch); an addition taken alone goes after the
    lines its hunk removes, where the patch shows it. Any subset applies.
    """
    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    offsets = line_offsets(a)
    changes: list[Change] = []
    for tag, i1, i2, j1, j2 in matcher(a, b).get_opcodes():
        if tag == "equal":
            continue
        for i in range(i1, i2):
            edit = Edit(offsets[i], offsets[i + 1], "", len(changes))
            changes.append(Change(path, (edit,), f"removed line {i + 1}: {_quoted(a[i])}"))
        for j in range(j1, j2):
            edit = Edit(offsets[i2], offsets[i2], b[j], len(changes))
            where = f"before line {i2 + 1}" if i2 < len(a) else "at the end"
            changes.append(Change(path, (edit,), f"added {where}: {_quoted(b[j])}"))
    return changes


def _quoted(line: str) -> str:
    text = line.strip()
    return f"`{text[:60]}{'...' if len(text) > 60 else ''}`"


def tree_changes(old: Mapping[str, str], new: Mapping[str, str]) -> list[Change]:
    """One change per file added, removed or changed, in path order."""
    changes = []
    for path in sorted(set(old) | set(new)):
        before, after = old.get(path), new.get(path)
        if before == after:
            continue
        if before is None:
            changes.append(Change(path, (Edit(0, 0, after or "", 0, 0),), "file added", presence=True))
        elif after is None:
            changes.append(Change(path, (Edit(0, len(before), "", 0),), "file removed", presence=False))
        else:
            changes.append(Change(path, (Edit(0, len(before), after, 0, 0),), "file changed"))
    return changes


# --- diffs --------------------------------------------------------------------


def unified_diff(before: Mapping[str, str], after: Mapping[str, str], context: int = 3) -> str:
    """A unified diff (``a/PATH``, ``b/PATH``; ``patch -p1`` applies it) of two trees."""
    out: list[str] = []
    for path in sorted(set(before) | set(after)):
        a, b = before.get(path), after.get(path)
        if a == b:
            continue
        hunks = list(_hunks((a or "").splitlines(keepends=True), (b or "").splitlines(keepends=True), context))
        if hunks:  # an empty file added or removed shows nothing, as in difflib
            out.append(f"--- {f'a/{path}' if a is not None else '/dev/null'}\n")
            out.append(f"+++ {f'b/{path}' if b is not None else '/dev/null'}\n")
        for line in hunks:
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def matcher(a: Sequence[str], b: Sequence[str]) -> difflib.SequenceMatcher[str]:
    """The one line matcher of diffs, changes and counts: difflib's, without its "popular lines" heuristic.

    :func:`difflib.unified_diff` keeps that heuristic, which on a file of 200
    lines or more treats frequent lines (blank ones) as junk: a patch could
    then remove a blank line and add it back, two changed lines that change
    nothing together, and a patch split into single lines would never be
    1-minimal in the lines it shows.
    """
    return difflib.SequenceMatcher(None, a, b, autojunk=False)


def _hunks(a: list[str], b: list[str], context: int) -> Iterator[str]:
    """The hunks of a unified diff (the format of :func:`difflib.unified_diff`) by :func:`matcher`."""
    for group in matcher(a, b).get_grouped_opcodes(context):
        first, last = group[0], group[-1]
        yield f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n"
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                yield from (" " + line for line in a[i1:i2])
                continue
            yield from ("-" + line for line in a[i1:i2])
            yield from ("+" + line for line in b[j1:j2])


def _range(start: int, stop: int) -> str:
    """A hunk's range, as unified diffs write it: an empty one names the line before."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def changed_lines(before: Mapping[str, str], after: Mapping[str, str]) -> int:
    """Lines removed plus lines added between two trees, as :func:`unified_diff` shows them; a binary file that
    changed counts one (``diff`` says "Binary files differ": a tarball's bytes are no lines)."""
    total = 0
    for path in set(before) | set(after):
        if "\0" in (before.get(path) or "") + (after.get(path) or ""):
            total += before.get(path) != after.get(path)
            continue
        a = (before.get(path) or "").splitlines(keepends=True)
        b = (after.get(path) or "").splitlines(keepends=True)
        total += sum((i2 - i1) + (j2 - j1) for tag, i1, i2, j1, j2 in matcher(a, b).get_opcodes() if tag != "equal")
    return total
