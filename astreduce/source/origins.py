"""Where each line of a candidate came from: the original file and line it was cut from, or nowhere (new text).

A reduction reaches its result through thousands of small edits: deletions,
replacements, hoisted blocks, inlined calls, renamed names, merged modules,
and at the end black's layout. Carrying a position through each of them, as
a compiler carries source positions through its passes, would put origins
into every transform and text pass. Instead a line's origin is *followed*:
each new text is aligned with the one before it, whose lines' origins are
known, and the alignment costs the change, not the text:

* the lines before the first difference and after the last one are the same
  lines (found at C speed, :func:`~astreduce.source.difference.common_length`);
* in the changed middle, lines equal but for their indentation keep their
  origin (a hoisted body), and a line edited in place (a name renamed, an
  expression folded to a constant, an operand dropped) keeps the origin of
  the line it was cut from, when the two still share a word or an operator;
* a line that appears where nothing was (an inlined body, a merged module)
  is looked up among the lines that changed or went, in this file and in
  the files that changed with it;
* what is left (a ``pass``, ``...``, a constant written by a transform) is
  new: its origin is ``None``.

:class:`Lineage` keeps the origins of the latest improvement of a
reduction's tree of files, moves on with each improvement, and answers the
origin of any line of a candidate derived from it. :func:`functions` names
the function (qualified as Python does) each line of an original file
belongs to, so that a failure's place is a file and a function: the
same-place check of :mod:`astreduce.oracles.place` compares those.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from astreduce.source.difference import common_length

__all__ = ["Lineage", "Origin", "Traced", "follow", "functions", "text_lines", "logical_lines"]


@dataclass(frozen=True, slots=True)
class Origin:
    """A line of an original file: its path (relative to the input's root) and its number (from 1)."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


def text_lines(text: str) -> list[str]:
    """The lines of ``text`` as Python numbers them (index ``i`` is line ``i + 1``), without their endings."""
    lines = text.split("\n")
    if "\r" in text:
        lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    return lines


@dataclass(frozen=True)
class Traced:
    """A text, its lines, and each line's origin."""

    text: str
    lines: tuple[str, ...]
    origins: tuple[Origin | None, ...]

    @classmethod
    def original(cls, file: str, text: str) -> Traced:
        """An original file: every line comes from itself."""
        lines = tuple(text_lines(text))
        return cls(text, lines, tuple(Origin(file, number) for number in range(1, len(lines) + 1)))

    @classmethod
    def new(cls, text: str) -> Traced:
        """A text none of whose lines has an origin."""
        lines = tuple(text_lines(text))
        return cls(text, lines, (None,) * len(lines))


# --- comparing two lines ---------------------------------------------------------

_TOKENS = re.compile(r"[^\W\d]\w*|\d[\w.]*|[-+*/%<>=!&|^~@]+|\S")
#: Tokens that say little about a line on their own: brackets and separators.
_WEAK = frozenset("()[]{},:.;'\"\\#")


def _significant(line: str) -> Counter[str]:
    """The words, numbers and operators of a line, counted (brackets, quotes and separators left out)."""
    return Counter(token for token in _TOKENS.findall(line) if token not in _WEAK)


def _shared(a: Counter[str], b: Counter[str]) -> int:
    return sum((a & b).values())


def _score(old: Counter[str], new: Counter[str]) -> float:
    """How much of ``new`` is found in ``old`` (0: nothing in common)."""
    if not new:
        return 0.0
    return _shared(old, new) / sum(new.values())


#: A changed line paired with the old line at its place must be at least this much of it.
_IN_PLACE_SCORE = 0.5
#: A line looked up far from where it appears (an inlined body, a merged module) must be this much of an
#: old line, and hold at least this many significant tokens: a lone ``return`` or ``pass`` is not looked up.
_FAR_SCORE = 0.75
_FAR_TOKENS = 2


# --- following one text to the next --------------------------------------------------


def _bounds(old: str, new: str) -> tuple[int, int]:
    """How many whole lines ``old`` and ``new`` share at their start, and at their end."""
    shortest = min(len(old), len(new))
    head = common_length(old, new, shortest)
    first = old.count("\n", 0, head)
    tail = common_length(old, new, shortest - head, from_end=True)
    last = old.count("\n", len(old) - tail) if tail else 0
    return first, last


def follow(old: Traced, new: str, elsewhere: Sequence[Traced] = ()) -> Traced:
    """``new``'s lines and their origins, aligned with ``old`` (the text it was made from).

    ``elsewhere`` are other texts that changed or went in the same step (a
    tree's other files), searched for lines that appear from nowhere.
    """
    if new == old.text:
        return old
    lines = text_lines(new)
    first, last = _bounds(old.text, new)
    last = min(last, len(old.lines) - first, len(lines) - first)
    middle = _align(old, first, len(old.lines) - last, lines[first : len(lines) - last], elsewhere)
    origins = old.origins[:first] + tuple(middle) + (old.origins[len(old.origins) - last :] if last else ())
    return Traced(new, tuple(lines), origins)


def origin_of(old: Traced, new: str, number: int, elsewhere: Sequence[Traced] = ()) -> Origin | None:
    """The origin of line ``number`` (from 1) of ``new``, made from ``old``: :func:`follow` for one line,
    at the cost of the change where the line is outside it."""
    count = new.count("\n") + 1
    if not 1 <= number <= count:
        return None
    first, last = _bounds(old.text, new)
    last = min(last, len(old.lines) - first, count - first)
    if number <= first:
        return old.origins[number - 1]
    if number > count - last:
        return old.origins[len(old.origins) - (count - number) - 1]
    return follow(old, new, elsewhere).origins[number - 1]


def _align(
    old: Traced, start: int, end: int, new: Sequence[str], elsewhere: Sequence[Traced]
) -> list[Origin | None]:
    """Origins of the changed lines ``new``, which replace ``old``'s lines ``start`` to ``end``."""
    before = old.lines[start:end]
    origins = old.origins[start:end]
    if len(before) == len(new) and all(map(_in_place, before, new)):
        return list(origins)  # each line edited in place (a rename, a fold): the cheap, common case
    stripped_old = [line.strip() for line in before]
    stripped_new = [line.strip() for line in new]
    result: list[Origin | None] = [None] * len(new)
    matcher = SequenceMatcher(None, stripped_old, stripped_new, autojunk=False)
    blocks: list[tuple[int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            result[j1:j2] = origins[i1:i2]
        elif tag == "replace":
            blocks.append((i1, i2, j1, j2))
    changed = Traced(old.text, before, origins)
    # a line equal to one that changed or went (a body inlined, a module merged) came from there; then a line
    # edited in place from its block; then a line mostly made of another one, anywhere before
    _find_exact(result, new, [changed, *elsewhere], lambda j: len(_significant(new[j])) >= _FAR_TOKENS)
    for i1, i2, j1, j2 in blocks:
        candidates = [(_significant(before[i]), i) for i in range(i1, i2)]
        for j in range(j1, j2):
            if result[j] is None:
                result[j] = _best_in_block(candidates, origins, new[j], (j - j1) / max(1, j2 - j1), i1, i2)
    missing = [j for j, origin in enumerate(result) if origin is None and len(_significant(new[j])) >= _FAR_TOKENS]
    if missing:
        _find_far(missing, new, result, [changed, old, *elsewhere])
    return result


def _find_exact(result: list[Origin | None], new: Sequence[str], pools: Sequence[Traced], eligible: Callable[[int], bool]) -> None:
    """Fill the origins of the lines still without one that equal (but for indentation) a line of ``pools``."""
    missing = [j for j, origin in enumerate(result) if origin is None and new[j].strip() and eligible(j)]
    if not missing:
        return
    exact: dict[str, Origin] = {}
    for pool in pools:
        for line, origin in zip(pool.lines, pool.origins):
            if origin is not None:
                exact.setdefault(line.strip(), origin)
    for j in missing:
        result[j] = exact.get(new[j].strip())


def _in_place(old: str, new: str) -> bool:
    """Whether ``new`` is ``old`` edited in place: the same but for indentation, or mostly made of it."""
    return old.strip() == new.strip() or _score(_significant(old), _significant(new)) >= _IN_PLACE_SCORE


def _best_in_block(
    candidates: list[tuple[Counter[str], int]], origins: Sequence[Origin | None], line: str, where: float, i1: int, i2: int
) -> Origin | None:
    """The origin of the old line of a replaced block that ``line`` shares most with (the nearest by position on a tie)."""
    words = _significant(line)
    best: tuple[float, float] | None = None
    chosen = None
    for counted, i in candidates:
        score = _score(counted, words)
        if score == 0:
            continue
        distance = abs((i - i1) / max(1, i2 - i1) - where)
        key = (score, -distance)
        if best is None or key > best:
            best, chosen = key, origins[i]
    return chosen


def _find_far(missing: list[int], new: Sequence[str], result: list[Origin | None], pools: Sequence[Traced]) -> None:
    """Origins of lines that appear where nothing was: the same line (but for indentation) in one of ``pools``,
    searched in order, else one it is mostly made of."""
    for pool in pools:
        _find_exact(result, new, [pool], lambda j: j in missing)
        missing = [j for j in missing if result[j] is None]
        if not missing:
            return
    counted = [(_significant(line), origin) for pool in pools for line, origin in zip(pool.lines, pool.origins) if origin is not None]
    for j in missing:
        words = _significant(new[j])
        best = max(((_score(c, words), o) for c, o in counted), key=lambda pair: pair[0], default=(0.0, None))
        if best[0] >= _FAR_SCORE:
            result[j] = best[1]


def logical_lines(text: str) -> list[tuple[int, int]]:
    """For each line of ``text`` (index ``i`` is line ``i + 1``), the first and last line of the logical line it
    belongs to (a bracketed expression, a string or a backslash continuation spans several); each line alone when
    ``text`` does not tokenize."""
    count = len(text_lines(text))
    spans = [(number, number) for number in range(1, count + 1)]
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, ValueError, SystemError):
        return spans
    start = None
    for token in tokens:
        if token.type in (tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING):
            continue
        if start is None:
            start = token.start[0]
        if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            end = token.start[0]
            for number in range(start, min(end, count) + 1):
                spans[number - 1] = (start, end)
            start = None
    return spans


# --- the functions of an original file -------------------------------------------------


def functions(text: str) -> list[str | None]:
    """For each line of ``text`` (index ``i`` is line ``i + 1``), the qualified name of the innermost function
    or class it belongs to (decorators and signature included), as ``__qualname__`` writes it
    (``Parser.parse``, ``outer.<locals>.inner``); ``None`` at module level or when ``text`` does not parse."""
    count = len(text_lines(text))
    named: list[str | None] = [None] * count
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return named

    def visit(body: Iterable[ast.AST], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qualname = prefix + node.name
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                last = node.end_lineno or node.lineno
                named[first - 1 : last] = [qualname] * (last - first + 1)
                inner = qualname + (".<locals>." if not isinstance(node, ast.ClassDef) else ".")
                visit(ast.iter_child_nodes(node), inner)
            elif isinstance(node, (ast.stmt, ast.excepthandler, ast.match_case)):
                visit(ast.iter_child_nodes(node), prefix)

    visit(module.body, "")
    return named


# --- a reduction's lineage ------------------------------------------------------------------


class Lineage:
    """The origins of a reduction's latest improvement, for a tree of files (one file: a tree of one).

    :meth:`advance` moves on to each improvement; :meth:`origin` answers
    for a line of any candidate made from the latest one, and
    :meth:`trace` for every line of a result.
    """

    def __init__(self, original: Mapping[str, str]) -> None:
        self.original = dict(original)
        self.current: dict[str, Traced] = {path: Traced.original(path, text) for path, text in original.items()}
        self._functions: dict[str, list[str | None]] = {}

    def _elsewhere(self, tree: Mapping[str, str], path: str) -> list[Traced]:
        """The texts of the latest improvement that ``tree`` changed or dropped, other than ``path``'s."""
        return [t for p, t in self.current.items() if p != path and tree.get(p) != t.text]

    def trace(self, tree: Mapping[str, str]) -> dict[str, Traced]:
        """Every file of ``tree`` (made from the latest improvement) with its lines' origins."""
        traced: dict[str, Traced] = {}
        for path, text in tree.items():
            before = self.current.get(path)
            if before is not None and before.text == text:
                traced[path] = before
            else:
                base = before if before is not None else Traced.new("")
                traced[path] = follow(base, text, self._elsewhere(tree, path))
        return traced

    def advance(self, tree: Mapping[str, str]) -> None:
        """Make ``tree`` (an improvement: it reproduces) the latest."""
        self.current = self.trace(tree)

    def origin(self, tree: Mapping[str, str], path: str, number: int) -> Origin | None:
        """The origin of line ``number`` of file ``path`` of ``tree``, a candidate made from the latest improvement."""
        text = tree.get(path)
        if text is None:
            return None
        before = self.current.get(path)
        if before is None:
            return follow(Traced.new(""), text, self._elsewhere(tree, path)).origins[number - 1] if number <= text.count("\n") + 1 else None
        if before.text == text:
            return before.origins[number - 1] if 1 <= number <= len(before.origins) else None
        return origin_of(before, text, number, self._elsewhere(tree, path))

    def function(self, origin: Origin) -> str | None:
        """The qualified name of the function or class the original line ``origin`` belongs to (None: module level)."""
        named = self._functions.get(origin.file)
        if named is None:
            named = self._functions[origin.file] = functions(self.original.get(origin.file, ""))
        return named[origin.line - 1] if 1 <= origin.line <= len(named) else None
