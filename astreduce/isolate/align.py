"""Syntax-aware changes: the statement trees of OLD and NEW aligned block by block.

A def or class matches its namesake, another compound statement matches one
with the same first line, a simple statement the same text; matched compound
statements are aligned inside, recursively (:class:`_Aligner`). Every change
is then one statement added, removed or replaced, or one changed header (the
lines of a compound statement outside its blocks: decorators, signature,
``else:`` ...); comment and blank lines travel with the statement below them,
and applying every change gives NEW exactly. Grouped by their innermost
enclosing function or class (``--granularity functions``), they are dd+'s
grouping that cut the GDB study from 470 tests to 97.

:func:`file_changes` chooses between these and line hunks for one file: by
lines when a version does not parse, or is not Python.
"""

from __future__ import annotations

import ast
import difflib
import re
import warnings
from dataclasses import dataclass

from astreduce.errors import UsageError
from astreduce.isolate.changes import (
    GRANULARITIES,
    Change,
    Edit,
    Granularity,
    line_changes,
    line_offsets,
)


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
        self.offsets = line_offsets(self.lines)
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


def parse_python(text: str) -> ast.Module | None:
    """The module's tree, or ``None`` when the running interpreter cannot parse it."""
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
    tie: str | None = None
    """Edits with one tie are one statement change (an added compound statement's own lines, opened)."""


class _Aligner:
    """Aligns two statement trees and emits the edits that turn OLD into NEW.

    Every edit gets a group for the ``functions`` granularity: everything in a
    function's body (nested blocks included) goes with the function; in a
    module or class body, each run of consecutive statements added, removed
    or replaced together is a group, and so is each compound statement
    changed inside (an ``if`` at module level, a class's own header).
    """

    def __init__(self, old: _Side, new: _Side, depth: int = 0) -> None:
        self.old = old
        self.new = new
        self.depth = depth
        """How many levels of a compound statement NEW adds are opened (0: each added statement whole)."""
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
        edit = Edit(self.old.offsets[first], self.old.offsets[last], self.new.text(new_first, new_last), order, new_first)
        where = scope or "module"
        line = first if line is None else line
        self.emitted.append(_Emitted(edit, group or f"#{order}", f"{label} (line {line + 1}, in {where})", where))

    def _gap(
        self, first: int, last: int, new_first: int, new_last: int, group: str | None, scope: str | None, label: str, line: int | None = None
    ) -> None:
        if self.old.lines[first:last] != self.new.lines[new_first:new_last]:
            self._emit(first, last, new_first, new_last, group, label, scope, line)

    def _block(self, olds: list[_Unit], news: list[_Unit], end: int, scope: str | None, group: str | None) -> None:
        """Align one block; ``group`` is the function holding it (``None`` in a module or class body).

        Units with the same key are matched by difflib; within each run of
        units that differ, the units most alike are paired in order
        (:func:`_similar_pairs`), so that a statement NEW rewrote stays an
        edit of OLD's own statement (an ``if`` whose condition changed is
        aligned inside, not removed and added again beside the old one).
        """
        matcher = difflib.SequenceMatcher(None, [u.key for u in olds], [u.key for u in news], autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                for old, new in zip(olds[i1:i2], news[j1:j2]):
                    self._pair(old, new, scope, group)
                continue
            line = (olds[i1].start if i1 < len(olds) else end) + 1
            run = group or f"{scope or 'module'}: statements from line {line}"
            pairs = _similar_pairs(self.old, olds[i1:i2], self.new, news[j1:j2])
            at_old, at_new = i1, j1
            for k, l in [*pairs, (i2 - i1, j2 - j1)]:
                for old in olds[at_old : i1 + k]:
                    self._emit(old.first, old.last, old.first, old.first, run, f"removed {_headline(self.old, old)}", scope, old.start)
                at = olds[i1 + k].first if i1 + k < i2 else (olds[i2 - 1].last if i2 > i1 else (olds[i1].first if i1 < len(olds) else end))
                for new in news[at_new : j1 + l]:
                    self._emit_insert(at, new, run, scope)
                if i1 + k < i2:
                    old, new = olds[i1 + k], news[j1 + l]
                    if _compound_alike(old, new):
                        self._pair(old, new, scope, group)
                    else:
                        self._emit(old.first, old.last, new.first, new.last, run, f"replaced {_headline(self.old, old)}", scope, old.start)
                at_old, at_new = i1 + k + 1, j1 + l + 1

    def _emit_insert(self, at: int, new: _Unit, group: str, scope: str | None, depth: int | None = None) -> None:
        """Insert NEW's unit before OLD's line ``at``: whole, or ``depth`` levels opened.

        Opened, a compound statement is its own lines (its header, ``else:``
        and the like: one change, tied) and each statement of its blocks
        inserted one level less open, all at the same place in NEW's order:
        HDD's next level for a class or a function that only NEW has.
        """
        depth = self.depth if depth is None else depth
        where = scope or "module"
        if depth <= 0 or not new.blocks:
            order = len(self.emitted)
            edit = Edit(self.old.offsets[at], self.old.offsets[at], self.new.text(new.first, new.last), order, new.first)
            label = f"added {_headline(self.new, new)} (before line {at + 1}, in {where})"
            self.emitted.append(_Emitted(edit, group, label, where))
            return
        label = f"added {_headline(self.new, new)}: its own lines (before line {at + 1}, in {where})"
        tie = f"{len(self.emitted)}:{label}"
        inner = f"{scope}.{new.name}" if scope and new.name else (new.name or scope)
        previous = new.first
        for _, units in new.blocks:
            self._tied_insert(at, previous, units[0].first, group, label, tie, where)
            for unit in units:
                self._emit_insert(at, unit, group, inner, depth - 1)
            previous = units[-1].last
        self._tied_insert(at, previous, new.last, group, label, tie, where)

    def _tied_insert(self, at: int, first: int, last: int, group: str, label: str, tie: str, where: str) -> None:
        if first < last:
            offset = self.old.offsets[at]
            edit = Edit(offset, offset, self.new.text(first, last), len(self.emitted), first)
            self.emitted.append(_Emitted(edit, group, label, where, tie))

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


#: Two statements in a run that NEW rewrote are paired when their words are at least this alike (difflib's ratio).
ALIKE = 0.5

#: Above this many pairs of statements to weigh, a run is paired in order of position instead (the weighing is quadratic).
PAIRING_LIMIT = 40_000

_WORD = re.compile(r"\w+|[^\w\s]")


def _unit_words(side: _Side, unit: _Unit) -> list[str]:
    """The words of a simple statement, or of a compound statement's header (the lines before its first block)."""
    stop = unit.blocks[0][1][0].first if unit.blocks else unit.last
    return _WORD.findall(side.text(unit.start, max(stop, unit.start + 1)))


def _compound_alike(old: _Unit, new: _Unit) -> bool:
    """Two compound statements of one kind, to be aligned inside (their headers as one change, their blocks unit by unit)."""
    return old.blocks is not None and new.blocks is not None and old.key[0] == new.key[0]


def _similar_pairs(old_side: _Side, olds: list[_Unit], new_side: _Side, news: list[_Unit]) -> list[tuple[int, int]]:
    """Pairs (i, j) of ``olds[i]`` and ``news[j]``, in order on both sides, that are most alike in all.

    Simple statements pair with simple ones, a compound statement with one of
    its own kind; a pair counts when its words are :data:`ALIKE` or more
    (difflib's ratio). The pairs maximise the sum of their ratios (a dynamic
    programme, as an alignment of two sequences), so that NEW's rewritten
    line is an edit of OLD's line it came from, even when statements were
    added or removed around it. Beyond :data:`PAIRING_LIMIT`, units pair by
    position when they are alike.
    """
    if not olds or not news:
        return []
    if len(olds) * len(news) > PAIRING_LIMIT:
        return [(i, i) for i in range(min(len(olds), len(news))) if _pairable(olds[i], news[i])]
    old_words = [_unit_words(old_side, u) for u in olds]
    new_words = [_unit_words(new_side, u) for u in news]
    matcher: difflib.SequenceMatcher[str] = difflib.SequenceMatcher(None, autojunk=False)
    score = [[0.0] * len(news) for _ in olds]
    for j, words in enumerate(new_words):
        matcher.set_seq2(words)
        for i, old in enumerate(olds):
            if not _pairable(old, news[j]):
                continue
            matcher.set_seq1(old_words[i])
            if matcher.real_quick_ratio() >= ALIKE and matcher.quick_ratio() >= ALIKE:
                ratio = matcher.ratio()
                if ratio >= ALIKE:
                    score[i][j] = ratio
    # best[i][j]: the best total over olds[i:], news[j:]
    best = [[0.0] * (len(news) + 1) for _ in range(len(olds) + 1)]
    for i in range(len(olds) - 1, -1, -1):
        for j in range(len(news) - 1, -1, -1):
            take = score[i][j] + best[i + 1][j + 1] if score[i][j] else 0.0
            best[i][j] = max(take, best[i + 1][j], best[i][j + 1])
    pairs = []
    i = j = 0
    while i < len(olds) and j < len(news):
        if score[i][j] and best[i][j] == score[i][j] + best[i + 1][j + 1]:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif best[i][j] == best[i + 1][j]:
            i += 1
        else:
            j += 1
    return pairs


def _pairable(old: _Unit, new: _Unit) -> bool:
    """Whether two units may pair: simple statements of any kind, compound ones of one kind, a def or class only with its namesake."""
    if old.key[0] in ("def", "class") or new.key[0] in ("def", "class"):
        return old.key == new.key
    if old.blocks is None and new.blocks is None:
        return True
    return _compound_alike(old, new)


def _headline(side: _Side, unit: _Unit) -> str:
    text = side.lines[unit.start].strip() if unit.start < len(side.lines) else ""
    return f"`{text[:60]}{'...' if len(text) > 60 else ''}`"


def statement_changes(old: str, new: str, path: str = "", *, by_function: bool = False, depth: int = 0) -> list[Change] | None:
    """Syntax-aware changes (see the module docstring); ``None`` when a version does not parse.

    With ``by_function`` the statement changes are grouped by their innermost
    enclosing function or class, or else by their module-level statement.
    ``depth`` opens the compound statements NEW adds that many levels
    (:meth:`_Aligner._emit_insert`).
    """
    old_tree, new_tree = parse_python(old), parse_python(new)
    if old_tree is None or new_tree is None:
        return None
    aligner = _Aligner(_Side(old, old_tree), _Side(new, new_tree), depth)
    aligner.run()
    if not by_function:
        ties: dict[str, list[Edit]] = {}
        singles: list[tuple[int, str, list[Edit]]] = []
        for position, emitted in enumerate(aligner.emitted):
            if emitted.tie is None:
                singles.append((position, emitted.label, [emitted.edit]))
            elif emitted.tie in ties:
                ties[emitted.tie].append(emitted.edit)
            else:
                ties[emitted.tie] = edits = [emitted.edit]
                singles.append((position, emitted.label, edits))
        return [Change(path, tuple(edits), label) for _, label, edits in singles]
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


def file_changes(
    old: str, new: str, granularity: Granularity, path: str = "", *, python_only: bool = False, depth: int = 0,
) -> list[Change]:
    """The changes that turn ``old`` into ``new``; by lines when a version does not parse.

    With ``python_only`` (files of a tree) only ``.py`` and ``.pyw`` files are read as Python;
    ``depth`` opens the statements NEW adds (see :func:`statement_changes`).
    """
    if granularity not in GRANULARITIES:
        raise UsageError(f"unknown granularity {granularity!r}; choose from {', '.join(GRANULARITIES)}")
    if granularity != "lines" and (not python_only or path.endswith((".py", ".pyw"))):
        found = statement_changes(old, new, path, by_function=granularity == "functions", depth=depth)
        if found is not None:
            return found
    return line_changes(old, new, path)
