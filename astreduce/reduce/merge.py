"""Merge a module into the file that imports it: one file fewer, one namespace more.

A crash repro spread over a package keeps one file per module it touches,
and the single-file reducer cannot cross a module boundary: it cannot inline
a helper that lives in another file, nor drop a parameter whose call sites
are elsewhere. Merging the module into its only importer removes the
boundary. The module's text replaces the importer's first statement that
imports it (so code runs in the same order as before), and the importer's
references are rewritten to the merged names:

* ``from m import a, b as c`` → the module's text, then ``c = b``;
* ``import pkg.m`` / ``import pkg.m as mm`` / ``from pkg import m`` → the
  module's text, and every ``pkg.m.x`` / ``mm.x`` / ``m.x`` → ``x``.

The module's own relative imports become absolute when the importer sits in
another package; its ``from __future__`` imports move to the importer's top;
its docstring goes. A merge is refused (``None``) where the rewriting would be
guesswork: the module object itself is used (``f(mm)``), an import of it is
not a statement of its own at module level (inside a function, a ``try``,
after a ``;``), the importer needs a submodule of it, or the module imports
its importer. Name clashes are not checked: the oracle judges the merged tree
like any other candidate, and a merge that changes what matters is rejected
there.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Mapping

from astreduce.source.imports import ImportGraph, absolute, module_name, modules_of, package_of, parse_module, references, statement_imports
from astreduce.search.unit_passes import splice_text

_NEWLINE = re.compile(r"\r\n|\r|\n")
#: The head of ``from <dots><module> import``: the module part is group 1.
_FROM_HEAD = re.compile(r"from\s*([.\w\s]*?)\s*import\b")


class _Offsets:
    """(line, UTF-8 column) positions of ``ast`` → character offsets into the text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]

    def line(self, number: int) -> int:
        """Offset of the start of line ``number`` (1-based); the text's end past the last line."""
        return self.starts[number - 1] if number - 1 < len(self.starts) else len(self.text)

    def at(self, line: int, col: int) -> int:
        start = self.line(line)
        end = self.line(line + 1)
        encoded = self.text[start:end].encode("utf-8", errors="surrogateescape")
        return start + len(encoded[:col].decode("utf-8", errors="ignore"))

    def lines_of(self, node: ast.stmt) -> tuple[int, int]:
        """The whole lines a statement covers, line ending included."""
        return self.line(node.lineno), self.line((node.end_lineno or node.lineno) + 1)


def _chain(node: ast.expr) -> tuple[str, ...] | None:
    """``a.b.c`` as ('a', 'b', 'c'); ``None`` for anything but a dotted name."""
    if isinstance(node, ast.Name):
        return (node.id,)
    if isinstance(node, ast.Attribute):
        inner = _chain(node.value)
        return None if inner is None else (*inner, node.attr)
    return None


def _on_its_own_lines(body: list[ast.stmt], index: int) -> bool:
    """The module-level statement ``body[index]`` has its lines to itself."""
    node = body[index]
    if node.col_offset != 0:
        return False
    if index > 0 and (body[index - 1].end_lineno or 0) >= node.lineno:
        return False
    return index + 1 >= len(body) or body[index + 1].lineno > (node.end_lineno or node.lineno)


def _alias_text(alias: ast.alias) -> str:
    return alias.name if alias.asname is None else f"{alias.name} as {alias.asname}"


def _is_docstring(node: ast.stmt) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _is_future(node: ast.stmt) -> bool:
    return isinstance(node, ast.ImportFrom) and node.module == "__future__" and node.level == 0


def _module_body(text: str, tree: ast.Module, path: str, importer: str) -> tuple[str, list[str]] | None:
    """The module's text as it goes into the importer, and its ``__future__`` names."""
    offsets = _Offsets(text)
    edits: list[tuple[int, int, str]] = []
    futures: list[str] = []
    for index, node in enumerate(tree.body):
        if (index == 0 and _is_docstring(node)) or _is_future(node):
            if not _on_its_own_lines(tree.body, index):
                return None
            if _is_future(node):
                assert isinstance(node, ast.ImportFrom)
                futures.extend(a.name for a in node.names)
            start, end = offsets.lines_of(node)
            edits.append((start, end, ""))
    if package_of(path) != package_of(importer):
        for found in ast.walk(tree):
            if isinstance(found, ast.ImportFrom) and found.level > 0:
                target = absolute(found.level, found.module, path)
                start = offsets.at(found.lineno, found.col_offset)
                head = _FROM_HEAD.match(text, start)
                if target is None or head is None:
                    return None
                edits.append((head.start(1), head.end(1), target))
    body = splice_text(text, edits)
    if body and not body.endswith(("\n", "\r")):
        body += "\n"
    return body, futures


def mergeable(tree: Mapping[str, str], kept: Collection[str], fixed: Collection[str]) -> list[tuple[str, str]]:
    """(module, its only importer) for each module of ``tree`` that may merge: a Python module imported by one file,
    the module neither ``kept`` (never merged) nor ``fixed`` (never changed), its importer not ``fixed``."""
    graph = ImportGraph.of(tree)
    pairs: list[tuple[str, str]] = []
    for path in sorted(tree):
        if path in kept or path in fixed or module_name(path) is None:
            continue
        importers = graph.importers(path)
        if len(importers) == 1 and not importers & set(fixed):
            pairs.append((path, *importers))
    return pairs


def merge(tree: Mapping[str, str], module_path: str, importer_path: str) -> dict[str, str] | None:
    """``tree`` with the module at ``module_path`` merged into ``importer_path``.

    The caller checks that no other file imports the module; this function
    checks that the importer's uses of it can be rewritten.

    Returns:
        The new tree (without ``module_path``), or ``None`` when the merge is
        refused (see the module docstring) or its result does not parse.
    """
    modules = modules_of(tree)
    name = module_name(module_path)
    if name is None or module_path == importer_path:
        return None
    module_text, importer_text = tree[module_path], tree[importer_path]
    module_tree, importer_tree = parse_module(module_text), parse_module(importer_text)
    if module_tree is None or importer_tree is None:
        return None
    own_name = module_name(importer_path)
    if own_name is not None and any(
        r.explicit and r.module == own_name for r in references(module_path, module_text, modules)
    ):
        return None  # the module imports its importer: merging would make it import itself
    body = _module_body(module_text, module_tree, module_path, importer_path)
    if body is None:
        return None
    module_source, futures = body

    offsets = _Offsets(importer_text)
    top = {id(node): index for index, node in enumerate(importer_tree.body)}
    chains: set[tuple[str, ...]] = set()  # dotted names bound to the module object
    still_bound: set[str] = set()  # names that imports left in the importer still bind
    statements: list[tuple[ast.stmt, str]] = []  # each import of the module, and what replaces it
    for node in ast.walk(importer_tree):
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        named = list(statement_imports(node, importer_path, modules))
        if any(n.startswith(name + ".") for n in named):
            return None  # a submodule of the module (a package) is imported too
        if name not in named:
            continue
        index = top.get(id(node))
        if index is None or not _on_its_own_lines(importer_tree.body, index):
            return None
        kept: list[ast.alias] = []
        aliases: list[str] = []
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name != name:
                    kept.append(alias)
                    still_bound.add(alias.asname or alias.name.split(".")[0])
                elif alias.asname is not None:
                    chains.add((alias.asname,))
                else:
                    chains.add(tuple(name.split(".")))
            rest = f"import {', '.join(map(_alias_text, kept))}\n" if kept else ""
        else:
            base = absolute(node.level, node.module, importer_path)
            for alias in node.names:
                if base == name:
                    if alias.asname is not None and alias.asname != alias.name:
                        aliases.append(f"{alias.asname} = {alias.name}\n")
                elif f"{base}.{alias.name}" == name:
                    chains.add((alias.asname or alias.name,))
                else:
                    kept.append(alias)
                    still_bound.add(alias.asname or alias.name)
            source = "." * node.level + (node.module or "")
            rest = f"from {source} import {', '.join(map(_alias_text, kept))}\n" if kept else ""
        statements.append((node, rest + "".join(aliases)))
    if not statements:
        return None
    statements.sort(key=lambda item: item[0].lineno)

    edits: list[tuple[int, int, str]] = []
    for number, (node, replacement) in enumerate(statements):
        start, end = offsets.lines_of(node)
        edits.append((start, end, (module_source if number == 0 else "") + replacement))
    for node in importer_tree.body:
        if isinstance(node, ast.Import) and all(node is not s for s, _ in statements):
            still_bound.update(a.asname or a.name.split(".")[0] for a in node.names)
    rewritten = _rewrite_uses(importer_tree, offsets, chains, still_bound)
    if rewritten is None:
        return None
    edits.extend(rewritten)
    have = {a.name for node in importer_tree.body if isinstance(node, ast.ImportFrom) and _is_future(node) for a in node.names}
    missing = [f for f in dict.fromkeys(futures) if f not in have]
    if missing:
        place = _future_place(importer_tree, offsets)
        edits.append((place, place, f"from __future__ import {', '.join(missing)}\n"))
    merged = splice_text(importer_text, edits)
    if parse_module(merged) is None:
        return None
    result = {path: text for path, text in tree.items() if path != module_path}
    result[importer_path] = merged
    return result


def _rewrite_uses(
    tree: ast.Module, offsets: _Offsets, chains: set[tuple[str, ...]], still_bound: set[str]
) -> list[tuple[int, int, str]] | None:
    """Edits turning ``<chain>.x`` into ``x``.

    ``None`` when a chain's root is used otherwise (``f(mm)``, ``pkg.other``)
    and no import left in the importer binds it.
    """
    if not chains:
        return []
    edits: list[tuple[int, int, str]] = []
    covered: set[int] = set()  # ids of the Name nodes inside rewritten chains
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        chain = _chain(node.value)
        if chain is None or chain not in chains:
            continue
        start = offsets.at(node.value.lineno, node.value.col_offset)
        end = offsets.at(node.end_lineno or node.lineno, node.end_col_offset or 0) - len(node.attr)
        edits.append((start, end, ""))
        root: ast.expr = node.value
        while isinstance(root, ast.Attribute):
            root = root.value
        covered.add(id(root))
    roots = {chain[0] for chain in chains} - still_bound
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in roots and id(node) not in covered:
            return None  # the module object itself is used: there is nothing to rewrite it to
    return edits


def _future_place(tree: ast.Module, offsets: _Offsets) -> int:
    """Where a ``from __future__`` import may go: after the docstring and the other ones."""
    place = None
    for index, node in enumerate(tree.body):
        if (index == 0 and _is_docstring(node)) or _is_future(node):
            place = offsets.line((node.end_lineno or node.lineno) + 1)
        else:
            break
    if place is not None:
        return place
    return offsets.line(tree.body[0].lineno) if tree.body else len(offsets.text)
