"""Passes over a text's spans rather than its syntax tree: units deleted by a search (lines, characters, tokens),
groups of span edits, and the comments and blank lines dropped in one candidate.

The literature's ddmin works on units (``lines``, ``chars``, ``tokens``);
``auto`` uses tokens too, once a small result's tree passes stall, and span
edits for what the tree does not show (:mod:`astreduce.search.text_passes`,
renaming). They only need the session and a search: no parse.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Callable, Sequence
from itertools import compress

from astreduce.outcome import Outcome
from astreduce.search.greedy import Search
from astreduce.search.session import Session


def splice_text(text: str, edits: Sequence[tuple[int, int, str]]) -> str:
    """Apply non-overlapping span replacements (start, end, new) to ``text``."""
    out: list[str] = []
    position = 0
    for start, end, new in sorted(edits):
        if start < position:  # overlaps an earlier edit: skip it
            continue
        out.append(text[position:start])
        out.append(new)
        position = end
    out.append(text[position:])
    return "".join(out)


def text_pass(session: Session, name: str, text: str, groups: list[tuple[tuple[int, int, str], ...]], search: Search) -> bool:
    """Minimise a keep-list of span-edit groups on ``text``; True if the best shrank."""
    if not groups:
        return False
    before = session.best_size.key
    stats = session.begin_pass(name)

    def render(applied: frozenset[int]) -> str:
        return splice_text(text, [edit for i in sorted(applied) for edit in groups[i]])

    applied = search(session, len(groups), render)
    if applied:
        session.accept(render(applied))
    session.end_pass(stats)
    return session.best_size.key < before


# --- units for the comparison strategies ---------------------------------------

_LINE = re.compile(r"[^\n]*\n|[^\n]+")
_FALLBACK_TOKEN = re.compile(r"\s*(?:\w+|[^\w\s])\s*|\s+")


def lines_of(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in _LINE.finditer(text)]


def chars_of(text: str) -> list[tuple[int, int]]:
    return [(i, i + 1) for i in range(len(text))]


def tokens_of(text: str) -> list[tuple[int, int]]:
    """Token spans, each with the whitespace that follows it, covering the whole text."""
    starts: list[int] = []
    try:
        offsets = [0]
        for line in io.StringIO(text):
            offsets.append(offsets[-1] + len(line))
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in (tokenize.ENDMARKER, tokenize.DEDENT) or token.start == token.end:
                continue
            starts.append(offsets[token.start[0] - 1] + token.start[1])
    except (tokenize.TokenError, SyntaxError, ValueError, IndexError):
        return [m.span() for m in _FALLBACK_TOKEN.finditer(text)]
    starts = sorted(set(s for s in starts if s < len(text)))
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    return [(s, e) for s, e in zip(starts, starts[1:] + [len(text)]) if e > s]


def counts_as_token(unit: str) -> bool:
    """Whether a unit of :func:`tokens_of` holds a token that counts: not a line end, blank or comment. Deleting
    those changes bytes only, and joins lines (``if c:\n    i += 1`` becomes ``if c:i += 1``), so that every parked
    edit near them looks new to the next round and is tested again (calc_tokenizer: one pass of them cost a
    700-test round); black undoes such joins anyway."""
    text = unit.strip()
    return bool(text) and not text.startswith("#")


def unit_pass(
    session: Session, name: str, units: list[tuple[int, int]], search: Search, deletable: Callable[[str], bool] | None = None
) -> bool:
    """Delete units (lines, characters, tokens) of the current best; only those whose text is ``deletable``, if
    given (the others stay in every candidate).

    Units cover the text in order, so a candidate is the join of the kept ones: no sorting of edits per candidate
    (character ddmin makes thousands of candidates of hundreds of units).
    """
    if not units:
        return False
    text = session.best
    pieces = [text[s:e] for s, e in units]
    head, tail = text[: units[0][0]], text[units[-1][1] :]
    targets = [i for i, piece in enumerate(pieces) if deletable is None or deletable(piece)]
    if not targets:
        return False
    before = session.best_size.key
    stats = session.begin_pass(name)

    everything = [True] * len(pieces)

    def render(applied: frozenset[int]) -> str:
        kept = everything.copy()  # a mask for compress(), which skips in C: the token pass renders a lot
        for index in applied:
            kept[targets[index]] = False
        return head + "".join(compress(pieces, kept)) + tail

    applied = search(session, len(targets), render)
    if applied:
        session.accept(render(applied))
    session.end_pass(stats)
    return session.best_size.key < before


def strip_comments(session: Session) -> None:
    """One candidate: the best without comments and blank lines, kept if it still FAILs."""
    text = session.best
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, ValueError):
        return
    lines = io.StringIO(text).readlines()
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    in_string: set[int] = set()  # line numbers inside multi-line strings: never touched
    edits: list[tuple[int, int, str]] = []
    for token in tokens:
        if token.type == tokenize.STRING or token.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
            in_string.update(range(token.start[0] + 1, token.end[0] + 1))
        elif token.type == tokenize.COMMENT:
            line_start = offsets[token.start[0] - 1]
            start = line_start + token.start[1]
            if text[line_start:start].strip() == "":  # a comment line: the whole line goes
                edits.append((line_start, offsets[token.start[0]], ""))
                continue
            while start > line_start and text[start - 1] in " \t":
                start -= 1
            edits.append((start, line_start + token.end[1], ""))
    for number, line in enumerate(lines, start=1):
        if number not in in_string and line.strip() == "" and line:
            edits.append((offsets[number - 1], offsets[number], ""))
    candidate = splice_text(text, edits)
    if candidate != text:
        stats = session.begin_pass("strip comments")
        if session.outcome(candidate) is Outcome.FAIL:
            session.accept(candidate)
        session.end_pass(stats)
