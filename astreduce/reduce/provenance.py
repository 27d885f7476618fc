"""Where a result came from: each line's origin, where its failure happens, the renames and folds on the way.

A maintainer handed a reduced program asks where in the real code each line
was, and where the failure really happens. :class:`Provenance` answers for
a result of any job (a file, a tree, a pytest project): every line's
original file, line and function (or nothing, for text a transform wrote),
the place of the original's failure and the place the result fails from,
and, line by line, the names the result renamed and the expressions it
folded into constants. The report (``"origins"``, ``"failure"``,
``"renames"``, ``"folds"``), ``--annotate`` and ``--bug-report`` read it.
"""

from __future__ import annotations

import io
import keyword
import tokenize
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any

from astreduce.oracles.place import Place, place_of
from astreduce.source.origins import Lineage, Origin, Traced, text_lines, logical_lines

__all__ = ["Provenance"]


@dataclass
class Provenance:
    """The origins of a result's lines and the places of its failure (see the module docstring)."""

    files: dict[str, Traced]
    """Each file of the result, its lines and their origins."""
    lineage: Lineage = field(repr=False)
    original_place: Place | None = None
    """Where the original failed (None: no frame of the program shows it, or the check was off and none known)."""
    raised_at: tuple[str, int] | None = None
    """Where the result fails: its file and line."""
    raised_from: Place | None = None
    """The origin of that line: the original's file, line and function."""
    same_place: bool = False
    """Whether candidates had to fail at the original's place (the default; ``--anywhere`` turns it off)."""
    _logical: dict[str, tuple[list[str], list[tuple[int, int]]]] = field(default_factory=dict, repr=False)

    @classmethod
    def of(
        cls, lineage: Lineage, result: Mapping[str, str], original_place: Place | None,
        raised_at: tuple[str, int] | None, *, same_place: bool,
    ) -> Provenance:
        """The provenance of ``result`` (a tree made from the lineage's latest improvement), failing at ``raised_at``."""
        return cls(
            files=lineage.trace(result), lineage=lineage, original_place=original_place, raised_at=raised_at,
            raised_from=place_of(raised_at, lineage, result), same_place=same_place,
        )

    def function(self, origin: Origin | None) -> str | None:
        return None if origin is None else self.lineage.function(origin)

    def entries(self, path: str) -> list[dict[str, Any]]:
        """The report's entries for the file ``path``: one per line."""
        traced = self.files[path]
        count = len(traced.lines) - (1 if traced.lines and traced.lines[-1] == "" else 0)
        return [
            {
                "line": number,
                "file": origin.file if origin is not None else None,
                "origin_line": origin.line if origin is not None else None,
                "function": self.function(origin),
            }
            for number, origin in zip(range(1, count + 1), traced.origins)
        ]

    def summary(self, result_name: str, tree: bool = False) -> str:
        """``raised at OUT:2, from pkg/mod.py:1375 in parser.parse`` ('' when the result's failure has no place);
        ``result_name`` is the output file, or the output folder of a ``tree``."""
        if self.raised_at is None:
            return ""
        if self.raised_from is not None and self.raised_from.pinned:
            return f"raised in {self.raised_from.describe()}"
        path, line = self.raised_at
        where = f"{result_name}/{path}:{line}" if tree else f"{result_name}:{line}"
        if self.raised_from is None:
            return f"raised at {where}"
        return f"raised at {where}, from {self.raised_from.describe()}"

    def changes(self) -> tuple[dict[str, str], list[dict[str, Any]]]:
        """The names renamed (original name → the result's) and, line by line, the folds: the result's tokens that
        stand where its original line had others, the renames undone (an expression become a constant, an argument
        inlined in place of a parameter)."""
        pairs = [
            (path, number, _words(line), _words(source))
            for path, traced in self.files.items()
            for number, (line, origin) in enumerate(zip(traced.lines, traced.origins), start=1)
            if origin is not None and (source := self.origin_text(origin)) is not None
        ]
        renames: dict[str, str] = {}
        for _, _, now, was in pairs:
            for tag, i1, i2, j1, j2 in SequenceMatcher(None, was, now, autojunk=False).get_opcodes():
                if tag == "replace" and i2 - i1 == j2 - j1 == 1 and _is_name(was[i1]) and _is_name(now[j1]):
                    renames.setdefault(was[i1], now[j1])
        back: dict[str, str] = {}
        for old, new in renames.items():
            back.setdefault(new, old)
        folds: list[dict[str, Any]] = []
        for path, number, now, was in pairs:
            undone = [back.get(word, word) for word in now]
            for tag, i1, i2, j1, j2 in SequenceMatcher(None, was, undone, autojunk=False).get_opcodes():
                if tag in ("replace", "insert") and not all(word in back for word in now[j1:j2]):
                    folds.append({"file": path, "line": number, "was": " ".join(was[i1:i2]), "now": " ".join(now[j1:j2])})
        return renames, folds

    def origin_text(self, origin: Origin) -> str | None:
        """The text of the logical line ``origin`` begins or lies in, from that line to the logical line's end
        (None: not a line of the original)."""
        cached = self._logical.get(origin.file)
        if cached is None:
            text = self.lineage.original.get(origin.file, "")
            cached = self._logical[origin.file] = (text_lines(text), logical_lines(text))
        lines, spans = cached
        if not 1 <= origin.line <= len(lines):
            return None
        return " ".join(lines[origin.line - 1 : spans[origin.line - 1][1]])

    def report(self, relative: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The report's ``origins``, ``failure``, ``renames`` and ``folds`` (result paths renamed by ``relative``)."""
        name = dict(relative or {})
        renames, folds = self.changes()
        for fold in folds:
            fold["file"] = name.get(fold["file"], fold["file"])
        raised: dict[str, Any] | None = None
        if self.raised_at is not None:
            path, line = self.raised_at
            origin = self.raised_from
            raised = {
                "file": name.get(path, path), "line": line,
                "origin_file": origin.file if origin is not None and not origin.pinned else None,
                "origin_line": origin.line if origin is not None else None,
                "function": origin.function if origin is not None else None,
                "appended": bool(origin is not None and origin.pinned),
            }
        return {
            "origins": {name.get(path, path): self.entries(path) for path in sorted(self.files)},
            "failure": {
                "raised_at": raised,
                "original": self.original_place.as_dict() if self.original_place is not None else None,
                "same_place": self.same_place,
            },
            "renames": renames,
            "folds": folds,
        }


def annotated(text: str, origins: Sequence[Origin | None]) -> str:
    """``text`` with each line that has an origin ending in ``# from FILE:LINE``, where a comment changes nothing:
    not inside a string or after a line continuation, not on a line that already has a comment. Lines keep
    their endings; a text that does not tokenize is returned as it is."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, ValueError, SystemError):
        return text
    ends: set[int] = set()
    commented: set[int] = set()
    for token in tokens:
        if token.type in (tokenize.NEWLINE, tokenize.NL) and token.start[1] > 0:
            ends.add(token.start[0])
        elif token.type == tokenize.COMMENT:
            commented.add(token.start[0])
    lines = text.splitlines(keepends=True)
    out = []
    for number, line in enumerate(lines, start=1):
        origin = origins[number - 1] if number <= len(origins) else None
        if origin is None or number not in ends or number in commented or not line.strip():
            out.append(line)
            continue
        body = line.rstrip("\r\n")
        out.append(f"{body}  # from {origin}{line[len(body):]}")
    return "".join(out)


def _words(line: str) -> list[str]:
    """A line's Python tokens (strings and numbers whole), or a word split when it does not tokenize alone."""
    try:
        return [
            t.string for t in tokenize.generate_tokens(io.StringIO(line.strip() + "\n").readline)
            if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT, tokenize.COMMENT)
        ]
    except (tokenize.TokenError, SyntaxError, ValueError, SystemError):
        import re

        return re.findall(r"\w+|[^\w\s]", line)


def _is_name(word: str) -> bool:
    return word.isidentifier() and not keyword.iskeyword(word)
