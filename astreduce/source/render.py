"""The NodeReducer: from a keep-list of edits to candidate text, by splicing source.

An *edit* says what happens to one node that is not kept: :data:`DROP`
removes it from its sequence or optional slot; a :class:`Replacement` puts
new text in its place, built from literal strings and *holes* that render a
descendant (with that descendant's own edits), a block of statements
(re-indented to the replaced statement's indentation), or a slice of the
node's own source.

Rendering never regenerates code: nodes without edits below them keep their
exact original text, so comments and formatting of everything that survives
stay as they were, and a candidate costs time proportional to the edited
part of the tree plus one string join (copying or regenerating a whole tree per candidate would cost more than most tests).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from astreduce.source.tree import Item, Sequence, Tree


@dataclass(frozen=True, slots=True)
class Hole:
    """Render descendant ``node`` (with its own edits) here."""

    node: int


@dataclass(frozen=True, slots=True)
class BlockHole:
    """Render the statements in ``field`` of ``owner`` here, re-indented."""

    owner: int
    field: str


@dataclass(frozen=True, slots=True)
class Slice:
    """Render the replaced node's own source between two offsets (with edits inside)."""

    start: int
    end: int


Part = str | Hole | BlockHole | Slice


@dataclass(frozen=True, slots=True)
class Replacement:
    """New text for a node: literal strings and holes, in order."""

    parts: tuple[Part, ...]

    @classmethod
    def text(cls, text: str) -> Replacement:
        return cls((text,))

    def describe(self) -> str:
        return "".join(p if isinstance(p, str) else f"<{type(p).__name__}>" for p in self.parts)


class _Drop:
    """The edit that removes a node from its sequence or optional slot."""

    _instance: _Drop | None = None

    def __new__(cls) -> _Drop:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "DROP"


DROP = _Drop()
Edit = _Drop | Replacement


def reindent(text: str, old: str, new: str) -> str:
    """Move every line after the first from indentation ``old`` to ``new``.

    Lines that do not start with ``old`` (continuation lines, lines inside a
    string) keep their text.
    """
    if old == new or "\n" not in text:
        return text
    lines = text.split("\n")
    return "\n".join(
        [lines[0]] + [new + line[len(old) :] if line.startswith(old) else line for line in lines[1:]]
    )


class NodeReducer:
    """Renders a :class:`~astreduce.source.tree.Tree` with edits applied to the nodes not kept."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self.text = tree.text

    def render(self, edits: Mapping[int, Edit]) -> str:
        """The text of the module with ``edits`` applied."""
        if not edits:
            return self.text
        return _Render(self.tree, edits).node(0)

    def render_opportunities(self, chosen: Iterable[Mapping[int, Edit]]) -> str:
        """Merge several opportunities' edits (the first edit of a node wins) and render."""
        merged: dict[int, Edit] = {}
        for edits in chosen:
            for node_id, edit in edits.items():
                merged.setdefault(node_id, edit)
        return self.render(merged)


class _Render:
    def __init__(self, tree: Tree, edits: Mapping[int, Edit]) -> None:
        self.tree = tree
        self.text = tree.text
        self.nodes = tree.nodes
        self.edits = edits
        dirty: set[int] = set()
        nodes = tree.nodes
        for node_id in edits:
            current = node_id
            while current >= 0 and current not in dirty:
                dirty.add(current)
                current = nodes[current].parent
        self.dirty = dirty

    def node(self, node_id: int) -> str:
        out: list[str] = []
        self._node(node_id, out)
        return "".join(out)

    def _node(self, node_id: int, out: list[str]) -> None:
        """Append the node's text with its edits to ``out``: every level appends to one list, joined once
        at the top (a level that joined its own pieces copied its whole span again, the module the file)."""
        edit = self.edits.get(node_id)
        node = self.nodes[node_id]
        if isinstance(edit, Replacement):
            out.append(self.replacement(node_id, edit))
        elif node_id not in self.dirty:
            out.append(self.text[node.start : node.end])
        else:
            self._splice(node.start, node.end, self.tree.items[node_id], out)

    def splice(self, start: int, end: int, items: Iterable[Item]) -> str:
        out: list[str] = []
        self._splice(start, end, items, out)
        return "".join(out)

    def _splice(self, start: int, end: int, items: Iterable[Item], out: list[str]) -> None:
        text = self.text
        position = start
        for item in items:
            if isinstance(item, int):
                if item not in self.dirty:
                    continue
                if self.edits.get(item) is DROP:
                    span = self.tree.drop_spans.get(item)
                    if span is None:  # not droppable here: keep it
                        continue
                    out.append(text[position : span[0]])
                    position = span[1]
                    continue
                child = self.nodes[item]
                out.append(text[position : child.start])
                self._node(item, out)
                position = child.end
            else:
                if self.dirty.isdisjoint(item.ids):
                    continue
                out.append(text[position : item.start])
                self._sequence(item, out)
                position = item.end
        out.append(text[position:end])

    def sequence(self, sequence: Sequence) -> str:
        out: list[str] = []
        self._sequence(sequence, out)
        return "".join(out)

    def _sequence(self, sequence: Sequence, out: list[str]) -> None:
        """The sequence with its elements' edits: only the elements an edit touches are visited; the
        runs of elements between them are copied as one slice each."""
        elements = sequence.elements
        touched = self._touched(sequence)
        dropped = [i for i in touched if self.edits.get(elements[i].key) is DROP]
        if not dropped:
            self._splice(sequence.start, sequence.end, [n for i in touched for n in elements[i].nodes], out)
            return
        if len(dropped) == len(elements):
            out.append(sequence.empty)
            return
        text = self.text
        last = -1  # the last kept element so far
        begin = 0
        for end in [*dropped, len(elements)]:  # the runs of kept elements between dropped ones
            if end > begin:
                if last >= 0:  # a dropped element takes the separator before it, the kept one before keeps its own
                    out.append(text[elements[last].end : elements[last + 1].start])
                self._run(sequence, begin, end - 1, touched, out)
                last = end - 1
            begin = end + 1
        if sequence.kind == "block" and last + 1 < len(elements):
            out.append(_same_line_comment(text[elements[last].end : elements[last + 1].start]))
        if sequence.kind == "tuple" and len(elements) - len(dropped) == 1 and not out[-1].rstrip().endswith(","):
            out.append(",")  # a one-element tuple needs its comma (the last element may bring its own)

    def _touched(self, sequence: Sequence) -> list[int]:
        """The indices of the elements with an edit inside, in order."""
        ids = sequence.ids
        dirty = self.dirty
        if len(dirty) < len(ids):
            return sorted({ids[n] for n in dirty if n in ids})
        return sorted({index for n, index in ids.items() if n in dirty})

    def _run(self, sequence: Sequence, first: int, last: int, touched: list[int], out: list[str]) -> None:
        """Elements ``first`` to ``last`` (all kept) with the separators between them: the original text
        but for the touched elements, rendered with their edits."""
        elements = sequence.elements
        position = elements[first].start
        for index in touched[bisect_left(touched, first) : bisect_right(touched, last)]:
            element = elements[index]
            out.append(self.text[position : element.start])
            self._splice(element.start, element.end, element.nodes, out)
            position = element.end
        out.append(self.text[position : elements[last].end])

    def replacement(self, node_id: int, replacement: Replacement) -> str:
        out: list[str] = []
        for part in replacement.parts:
            if isinstance(part, str):
                out.append(part)
            elif isinstance(part, Hole):
                out.append(self.node(part.node))
            elif isinstance(part, BlockHole):
                out.append(self.block(node_id, part))
            else:
                inside = [
                    it
                    for it in self.tree.items[node_id]
                    if _item_start(self.tree, it) >= part.start and _item_end(self.tree, it) <= part.end
                ]
                out.append(self.splice(part.start, part.end, inside))
        return "".join(out)

    def block(self, node_id: int, hole: BlockHole) -> str:
        sequence = self.tree.blocks[(hole.owner, hole.field)]
        body = self.sequence(sequence)
        last = sequence.elements[-1]
        if sequence.end < self.nodes[node_id].end and self.edits.get(last.key) is not DROP:
            # the comment after the block's last statement lies inside the replaced node: it goes along
            line_end = self.text.find("\n", sequence.end)
            body += _same_line_comment(self.text[sequence.end : len(self.text) if line_end < 0 else line_end])
        replaced_is_elif = self.text.startswith("elif", self.nodes[node_id].start)
        if body.startswith("elif") and not replaced_is_elif:
            body = body[2:]  # an elif chain hoisted out of its if starts a new if
        old = self.tree.indents.get(sequence.elements[0].key)
        new = self.tree.indents.get(node_id)
        if old is None or new is None:
            return body
        return reindent(body, old, new)


def _same_line_comment(separator: str) -> str:
    """The comment that ends a kept statement's line, from the separator to the statement after it.

    The separator goes with the dropped statement, but ``x = [1]  # keep me``
    keeps its comment when the statement after it, the last of its block, goes.
    """
    line = separator.split("\n", 1)[0].split("\r", 1)[0]
    stripped = line.lstrip(" \t;")
    return line[: len(line) - len(stripped)].replace(";", "") + stripped if stripped.startswith("#") else ""



def _item_start(tree: Tree, item: Item) -> int:
    return tree.nodes[item].start if isinstance(item, int) else item.start


def _item_end(tree: Tree, item: Item) -> int:
    return tree.nodes[item].end if isinstance(item, int) else item.end
