"""The tree model's data: nodes, sequences and the tree that holds them (built by :mod:`astreduce.source.tree`).

Plain data, computed once per text and never changed: the renderer splices
text against it, the transforms read it, and another interpreter sends it as
JSON (:mod:`astreduce.source.wire`; this file is then run with the standard
library only).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

class Node(NamedTuple):
    """One syntax-tree node: identity, place in the tree and exact span (a named tuple: a large
    module has tens of thousands, made again on every parse, and a tuple is made fastest)."""

    id: int
    kind: str
    parent: int
    """Parent id; -1 for the module."""
    field: str
    """Field of the parent holding this node ('' for the module)."""
    index: int  # type: ignore[assignment]  # a field named as tuple's method: the field is what is read
    """Position in that field when it is a list, else -1."""
    start: int
    end: int
    depth: int
    name: str | None = None
    """Identifier of Name, FunctionDef, ClassDef, arg, alias, keyword, Attribute (attr)."""
    constant: str | None = None
    """For Constant: the value's type name ('str', 'int', 'NoneType', ...)."""


class Element(NamedTuple):
    """One element of a :class:`Sequence`; dropping ``key`` drops the whole element (a named tuple,
    as :class:`Node` is: a parse makes one for every statement, argument and item)."""

    key: int
    start: int
    end: int
    nodes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Sequence:
    """Sibling elements separated by original text (commas, newlines, ``and``)."""

    id: int
    owner: int
    kind: str
    """'block', 'comma', 'tuple', 'decorators', 'handlers', 'boolop', 'ifs', 'generators', 'cases'."""
    elements: tuple[Element, ...]
    empty: str
    """Text that replaces the sequence when every element is dropped ('pass' for blocks)."""
    min_kept: int = 0
    """Fewer elements than this never make valid syntax (an import needs one name)."""
    ids: dict[int, int] = field(default_factory=dict, compare=False, repr=False)
    """Every element key and node id inside, with its element's index: rendering asks whether an edit
    touches the sequence, and which elements it touches (so a candidate costs its edits, not the sequence)."""

    def __post_init__(self) -> None:
        if not self.ids:
            for index, element in enumerate(self.elements):
                self.ids[element.key] = index
                for node in element.nodes:
                    self.ids[node] = index

    @property
    def start(self) -> int:
        return self.elements[0].start

    @property
    def end(self) -> int:
        return self.elements[-1].end


#: An item in a node's splice list: a child node id, or a sequence.
Item = int | Sequence


@dataclass
class Tree:
    """A parsed module: nodes in pre-order, sequences, drop spans, indentation."""

    text: str
    nodes: list[Node]
    fields: list[dict[str, tuple[int, ...]]]
    """Per node, each field's child ids (single children as 1-tuples)."""
    items: list[tuple[Item, ...]]
    """Per node, its direct children and sequences in source order, for splicing."""
    element_of: dict[int, tuple[Sequence, int]]
    """Node id of an element key → its sequence and position."""
    drop_spans: dict[int, tuple[int, int]]
    """Node id → the text span that goes when the node is dropped as an optional part."""
    indents: dict[int, str]
    """Statement id → its indentation, for statements that begin a line."""
    blocks: dict[tuple[int, str], Sequence] = field(default_factory=dict)
    """(owner id, field) → the statement sequence of that block."""
    syntax: list[ast.AST] | None = field(default=None, compare=False, repr=False)
    """The ``ast`` nodes the tree was built from, by node id (None: built elsewhere, by another interpreter):
    the scope analysis reads them instead of parsing the text again."""
    _by_kind: dict[str, list[Node]] | None = field(default=None, compare=False, repr=False)

    @property
    def root(self) -> Node:
        return self.nodes[0]

    def children(self, node_id: int) -> Iterator[int]:
        for ids in self.fields[node_id].values():
            yield from ids

    def child(self, node_id: int, field_name: str) -> int | None:
        ids = self.fields[node_id].get(field_name, ())
        return ids[0] if ids else None

    def source(self, node_id: int) -> str:
        node = self.nodes[node_id]
        return self.text[node.start : node.end]

    def is_droppable(self, node_id: int) -> bool:
        return node_id in self.element_of or node_id in self.drop_spans

    def of_kinds(self, kinds: frozenset[str]) -> list[Node]:
        """The nodes of ``kinds`` in pre-order (every node if ``kinds`` is empty), from an index made once
        per tree: each transform asks for its own kinds, and most are rare."""
        if not kinds:
            return self.nodes
        if self._by_kind is None:
            self._by_kind = {}
            for node in self.nodes:
                self._by_kind.setdefault(node.kind, []).append(node)
        found = [self._by_kind[kind] for kind in kinds if kind in self._by_kind]
        return found[0] if len(found) == 1 else sorted(node for nodes in found for node in nodes)  # by id first

    def ancestors(self, node_id: int) -> Iterator[int]:
        parent = self.nodes[node_id].parent
        while parent >= 0:
            yield parent
            parent = self.nodes[parent].parent

    def descendants(self, node_id: int) -> Iterator[int]:
        stack = list(self.children(node_id))
        while stack:
            current = stack.pop()
            yield current
            stack.extend(self.children(current))


#: Statement kinds: this interpreter's, and those of newer ones whose trees a
#: foreign parser may hand us (``--python 3.12``: ``type X = ...``).
STATEMENTS = frozenset(
    name
    for name in dir(ast)
    if isinstance(getattr(ast, name), type) and issubclass(getattr(ast, name), ast.stmt)
) | {"TypeAlias"}


def is_statement(kind: str) -> bool:
    return kind in STATEMENTS


_FSTRINGS = frozenset({"JoinedStr", "FormattedValue"})


def is_fstring_part(tree: Tree, node_id: int) -> bool:
    """Whether the node is a field, a format spec or a literal piece of an f-string.

    Those are syntax of the string, not expressions of their own: no text
    may replace them. The expression inside a field is not a part.
    """
    node = tree.nodes[node_id]
    if node.kind == "FormattedValue":
        return True
    return node.parent >= 0 and tree.nodes[node.parent].kind in _FSTRINGS and node.field != "value"
