"""Renaming: identifiers defined in the file → short names, every occurrence at once."""

from __future__ import annotations

import builtins
import io
import itertools
import keyword
import string
import tokenize
from collections.abc import Iterator

from astreduce.transforms import TextOpportunity, TextTransform
from astreduce.transforms.expressions import is_store
from astreduce.source.tree import Tree

#: Node kinds whose names the file defines (assigned names are found by is_store).
_DEFINING_KINDS = frozenset({"FunctionDef", "AsyncFunctionDef", "ClassDef", "arg"})
_RESERVED = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | frozenset(dir(builtins))


def short_names() -> Iterator[str]:
    """``a``, ``b``, ..., ``z``, ``aa``, ``ab``, ...: shortest first."""
    for length in itertools.count(1):
        for letters in itertools.product(string.ascii_lowercase, repeat=length):
            yield "".join(letters)


def _name_tokens(text: str) -> list[tokenize.TokenInfo] | None:
    try:
        return [t for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.NAME]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None


class RenameIdentifiers(TextTransform):
    """Rename identifiers defined in the file to short names, consistently everywhere.

    Applies to: names of functions, classes, parameters and assigned variables,
    in f-string fields too (not imported modules, dunder names or builtins).
    Yields: one proposal per identifier, renaming every token with that name
    (attribute and keyword uses included, except attributes and keywords of
    modules and builtins: ``os.path``, ``print(end=...)``) to the next free short name.
    Notes: a late pass; it shortens bytes, not tokens.
    """

    name = "rename"

    def text_opportunities(self, tree: Tree) -> Iterator[TextOpportunity]:
        tokens = _name_tokens(tree.text)
        if tokens is None:
            return
        defined: dict[str, None] = {}
        for node in tree.nodes:
            if node.name and (
                node.kind in _DEFINING_KINDS or (node.kind == "Name" and is_store(tree, node.id))
            ):
                defined.setdefault(node.name)
        foreign = _foreign_positions(tree, defined)
        positions: dict[str, list[tuple[int, int]]] = {}
        offsets = _line_offsets(tree.text)
        for token in tokens:
            start = offsets[token.start[0] - 1] + token.start[1]
            if start not in foreign:
                positions.setdefault(token.string, []).append((start, start + len(token.string)))
        in_fstrings, fields = _fstring_names(tree)
        taken = {s for spans in positions.values() for s, _ in spans}
        for name, start in fields:  # before 3.12 the tokenizer does not see into fields
            if start not in taken and start not in foreign:
                positions.setdefault(name, []).append((start, start + len(name)))
        used = {t.string for t in tokens} | {name for name, _ in fields}
        fresh = (n for n in short_names() if n not in used and n not in _RESERVED)
        for old in defined:
            if len(old) <= 1 or old in _RESERVED or (old.startswith("__") and old.endswith("__")):
                continue
            if old in in_fstrings or old not in positions:
                continue
            new = next(fresh)
            if len(new) >= len(old):
                continue
            yield TextOpportunity(self.name, tuple((s, e, new) for s, e in positions[old]))


def _fstring_names(tree: Tree) -> tuple[str, list[tuple[str, int]]]:
    """The text of f-strings whose fields are not modelled exactly, and (name, offset) of names in the others.

    A name inside an f-string field is a node with an exact span (3.12's
    parser, or :mod:`astreduce.source.fstrings` before): it is renamed with
    the others, while the same word in the string's literal text is left
    alone. Should the spans be the whole string's (a field that could not be
    matched), names that occur in its text are not renamed at all.
    """
    nodes = tree.nodes
    inexact: list[str] = []
    names: list[tuple[str, int]] = []
    for node in nodes:
        if node.kind != "JoinedStr" or any(nodes[a].kind == "JoinedStr" for a in tree.ancestors(node.id)):
            continue
        inside = list(tree.descendants(node.id))
        if any(nodes[i].kind == "FormattedValue" and not _is_field(tree.source(i)) for i in inside):
            inexact.append(tree.source(node.id))
            continue
        for i in inside:
            inner = nodes[i]
            if inner.name and inner.kind in ("Name", "Attribute", "keyword", "arg"):
                source = tree.source(i)
                at = source.rfind(inner.name) if inner.kind == "Attribute" else source.find(inner.name)
                names.append((inner.name, inner.start + at))
    return " ".join(inexact), names


def _is_field(source: str) -> bool:
    return source.startswith("{") and source.endswith("}")


def _foreign_positions(tree: Tree, defined: dict[str, None]) -> set[int]:
    """Offsets of attribute and keyword names that belong to objects the file does not define.

    ``os.path`` and ``print(x, end="")`` keep their names even when the file
    has a parameter ``path`` or a variable ``end``: renaming those uses would
    break the program, so the renaming would never apply at all.
    """
    foreign: set[int] = set()
    for node in tree.nodes:
        if node.kind == "Attribute" and node.name and _is_foreign(tree, tree.child(node.id, "value"), defined):
            foreign.add(node.start + tree.source(node.id).rfind(node.name))
        elif node.kind == "keyword" and node.name and tree.nodes[node.parent].kind == "Call":
            if _is_foreign(tree, tree.child(node.parent, "func"), defined):
                foreign.add(node.start)
    return foreign


def _is_foreign(tree: Tree, node_id: int | None, defined: dict[str, None]) -> bool:
    """Whether the expression is rooted in a name the file does not define (a module, a builtin)."""
    while node_id is not None and tree.nodes[node_id].kind == "Attribute":
        node_id = tree.child(node_id, "value")
    if node_id is None or tree.nodes[node_id].kind != "Name":
        return False
    return tree.nodes[node_id].name not in defined


def _line_offsets(text: str) -> list[int]:
    """Character offset of each line start, as ``tokenize`` numbers lines."""
    offsets = [0]
    for line in io.StringIO(text):
        offsets.append(offsets[-1] + len(line))
    return offsets
