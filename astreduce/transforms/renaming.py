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
from astreduce.tree import Tree

#: Node kinds and fields whose names the file defines.
_DEFINING_KINDS = frozenset({"FunctionDef", "AsyncFunctionDef", "ClassDef", "arg"})
_DEFINING_FIELDS = frozenset({"targets", "target", "optional_vars", "elts"})
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

    Applies to: names of functions, classes, parameters and assigned variables
    (not imported modules, dunder names, builtins, or names used inside f-strings).
    Yields: one proposal per identifier, renaming every token with that name
    (attribute and keyword uses included) to the next free short name.
    Notes: a late pass; it shortens bytes, not tokens.
    """

    name = "rename"
    phase = "rename"

    def text_opportunities(self, tree: Tree) -> Iterator[TextOpportunity]:
        tokens = _name_tokens(tree.text)
        if tokens is None:
            return
        defined: dict[str, None] = {}
        for node in tree.nodes:
            if node.name and (
                node.kind in _DEFINING_KINDS
                or (node.kind == "Name" and tree.nodes[node.parent].field in _DEFINING_FIELDS)
                or (node.kind == "Name" and node.field in _DEFINING_FIELDS)
            ):
                defined.setdefault(node.name)
        in_fstrings = " ".join(tree.source(n.id) for n in tree.nodes if n.kind == "JoinedStr")
        positions: dict[str, list[tuple[int, int]]] = {}
        offsets = _line_offsets(tree.text)
        for token in tokens:
            start = offsets[token.start[0] - 1] + token.start[1]
            positions.setdefault(token.string, []).append((start, start + len(token.string)))
        used = set(positions)
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


def _line_offsets(text: str) -> list[int]:
    """Character offset of each line start, as ``tokenize`` numbers lines."""
    offsets = [0]
    for line in io.StringIO(text):
        offsets.append(offsets[-1] + len(line))
    return offsets
