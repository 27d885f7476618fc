"""What a multi-file reduction produced: the sizes of trees and files, and the result with its report.

The tree job (:mod:`astreduce.reduce.tree`) measures candidate trees with
:class:`TreeSizes`; a command prints and writes a :class:`TreeResult`.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from astreduce.reduce.provenance import Provenance
from astreduce.reduce.report import outcomes_report, passes_report, provenance_report
from astreduce.search.session import SearchFigures
from astreduce.source.measure import Measure, Size, ast_nodes, measure

_PYTHON_SUFFIXES = (".py", ".pyw", ".pyi")


@dataclass(frozen=True, slots=True)
class TreeSize:
    """How big a tree is: its files, and the sums of their sizes."""

    files: int
    tokens: int
    bytes: int
    lines: int
    identifiers: int

    @property
    def key(self) -> tuple[int, int, int, int]:
        """The order in which "smaller" is judged: files, then as for one file."""
        return (self.files, self.tokens, self.identifiers, self.bytes)

    def as_size(self) -> Size:
        return Size(self.tokens, self.bytes, self.lines, self.identifiers)


class TreeSizes:
    """Sizes of files, measured once per text: a tree's size changes one file at a time.

    The texts measured last are kept (:data:`KEPT`), the least recently used
    forgotten first: the best tree's files are asked for after every change,
    and a cache emptied whole when full would tokenize them all again.
    """

    #: Texts whose sizes are kept.
    KEPT = 1024

    def __init__(self) -> None:
        # Measure: a new version of a file costs the statements it changed (a tree's improvements change a file or two)
        self._sizes = functools.lru_cache(maxsize=self.KEPT)(Measure())

    def file(self, text: str) -> Size:
        size: Size = self._sizes(text)
        return size

    def tree(self, tree: Mapping[str, str]) -> TreeSize:
        sizes = [self.file(text) for text in tree.values()]
        return TreeSize(
            files=len(sizes),
            tokens=sum(s.tokens for s in sizes),
            bytes=sum(s.bytes for s in sizes),
            lines=sum(s.lines for s in sizes),
            identifiers=sum(s.identifiers for s in sizes),
        )


def is_python(path: str, text: str) -> bool:
    """A file to reduce as Python: by its suffix, or a ``#!`` line naming python."""
    if path.endswith(_PYTHON_SUFFIXES):
        return True
    first = text.split("\n", 1)[0]
    return first.startswith("#!") and "python" in first


@dataclass
class FileFigures:
    """One input file: its size before and after, and what became of it."""

    path: str
    input: Size
    output: Size | None
    """``None`` when the file is gone (deleted or merged)."""
    fate: str
    """``unchanged``, ``reduced``, ``deleted``, or ``merged into PATH``."""


@dataclass
class TreeResult(SearchFigures):
    """What a multi-file reduction produced, with the figures of its report."""

    tree: dict[str, str]
    original: dict[str, str]
    merges: list[tuple[str, str]]
    """(module, importer) for every merge, in order."""
    input_size: TreeSize
    output_size: TreeSize
    resumed: int = 0
    """Outcomes answered by the persistent cache (``--resume``) instead of a test."""
    provenance: Provenance | None = None
    """Where each line of the result, and its failure, came from."""

    def files(self) -> list[FileFigures]:
        into = dict(self.merges)
        figures = []
        for path in sorted(self.original):
            before = measure(self.original[path])
            if path in self.tree:
                fate = "unchanged" if self.tree[path] == self.original[path] else "reduced"
                figures.append(FileFigures(path, before, measure(self.tree[path]), fate))
                continue
            home = path
            while home in into:
                home = into[home]
            if home == path:
                fate = "deleted"
            elif home in self.tree:
                fate = f"merged into {home}"
            else:
                fate = f"deleted (after merging into {into[path]})"
            figures.append(FileFigures(path, before, None, fate))
        return figures

    def report(self, input_path: str | None, output_path: str | None) -> dict[str, Any]:
        """The JSON report: the fields of docs/results.md for the whole tree, then per-file figures."""

        def size(path: str | None, tree: Mapping[str, str], total: TreeSize) -> dict[str, Any]:
            nodes = [ast_nodes(t) for p, t in tree.items() if is_python(p, t)]
            return {
                "path": path,
                "files": total.files,
                "bytes": total.bytes,
                "lines": total.lines,
                "tokens": total.tokens,
                "ast_nodes": None if any(n is None for n in nodes) else sum(n or 0 for n in nodes),
            }

        def file_size(value: Size | None) -> dict[str, int] | None:
            return None if value is None else {"bytes": value.bytes, "lines": value.lines, "tokens": value.tokens}

        return {
            "input": size(input_path, self.original, self.input_size),
            "output": size(output_path, self.tree, self.output_size),
            "files": [
                {"path": f.path, "input": file_size(f.input), "output": file_size(f.output), "fate": f.fate}
                for f in self.files()
            ],
            "merges": [{"module": module, "into": importer} for module, importer in self.merges],
            "tests": self.tests,
            "cache_hits": self.cache_hits,
            "seconds": round(self.seconds, 3),
            "oracle_seconds": round(self.oracle_seconds, 3),
            "strategy": self.strategy,
            "passes": passes_report(self.passes),
            "verified": self.verified,
            "formatted": self.formatted,
            "interrupted": self.interrupted,
            "history": [list(point) for point in self.history],
            "notes": self.notes,
            "speculative": self.speculative,
            "syntax_rejections": self.syntax_rejections,
            "unbound_rejections": self.unbound_rejections,
            "outcomes": outcomes_report(self),
            "resumed": self.resumed,
            "budget_ended": self.budget_ended,
            "target": self.target,
            **provenance_report(self.provenance),
        }
