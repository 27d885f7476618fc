"""Strategies: drive delta debugging over keep-lists until the candidate stops shrinking.

Invariants every pass keeps:

* **Progress is deterministic.** A pass tests candidates in a fixed order
  derived from the current text only; with a parallel executor the first
  FAIL in that order wins, so the result does not depend on ``-j``.
* **The current state is the session's best.** Every candidate that FAILs
  and is smaller than the best so far becomes the best at once (and is
  written to disk); each pass starts from it.
* **Indices stay valid.** A pass computes its keep-list once from one parse
  of the current text and renders every candidate from that same tree; it
  re-parses only between passes.
* **Big changes first.** Deletion before replacement, outer statements
  before inner ones, whole keep-lists before halves before single elements.
* **Adaptive batches.** The ``auto`` search tries to apply all of a
  keep-list at once, then halves the chunk size down to one element; a
  final sweep of single elements repeats until nothing applies, which makes
  the result 1-minimal with respect to the pass.

Strategies:

* ``flat`` — the design card exactly: every node in one keep-list, each
  with its first proposal, minimised by ddmin.
* ``hdd`` — hierarchical delta debugging (Misherghi & Su 2006): ddmin level
  by level of the syntax tree, repeated until a sweep changes nothing (HDD*).
* ``auto`` — passes repeated to a fixpoint: statement deletion level by
  level, deletion of any element, definitions, the classic four, hoisting,
  expression hoisting, simplification, token deletion over small results,
  renaming. The result is 1-minimal with respect to every transform.
* ``lines``, ``chars``, ``tokens`` — plain ddmin over those units, with the
  literature's semantics, for comparisons; they work on any text.
"""

from __future__ import annotations

import hashlib
import io
import re
import tokenize
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from astreduce.dd import dd
from astreduce.errors import DDPreconditionError, UsageError
from astreduce.outcome import Outcome
from astreduce.reducer import Edit, NodeReducer
from astreduce.session import Session
from astreduce.transforms import Opportunity, TextTransform, Transform
from astreduce.tree import Tree, is_statement, parse_or_none

#: Largest result (in tokens) on which ``auto`` runs a token-level pass.
TOKEN_PASS_LIMIT = 3000
#: Rounds of ``auto`` before it stops even if it still makes progress (a safety net).
MAX_ROUNDS = 30

STRATEGIES = ("auto", "hdd", "flat", "lines", "chars", "tokens")


# --- searches over a keep-list ------------------------------------------------


def apply_greedily(
    session: Session, count: int, render: Callable[[frozenset[int]], str], park: bool = True
) -> frozenset[int]:
    """Apply as many of ``count`` opportunities as the oracle allows; return the applied set.

    Chunks of the not-yet-applied opportunities are tried in order, from all
    of them at once down to single ones; each FAIL is kept. Candidates are
    handed to the session lazily in the order a sequential search would test
    them, assuming the earlier ones fail, so a parallel executor can run ahead.

    Single opportunities whose change (the changed lines with two lines of
    context, see :func:`change_key`) already failed alone earlier in the
    reduction are *stale*: they are not tested one by one again but once, all
    together, at the end of the sweep (unless ``park`` is false or
    ``session.retry_stale``). Later rounds of ``auto`` thus test what changed,
    not the whole program again. Deletions do not park: deleting a use far
    away is what lets a definition go (on stdlib_argparse parking them cost
    5% more tokens).
    """
    applied: frozenset[int] = frozenset()
    parked: set[int] = set()
    chunk = count
    while True:
        remaining = [i for i in range(count) if i not in applied and i not in parked]
        if not remaining:
            break
        chunk = max(1, min(chunk, len(remaining)))
        keys: dict[int, bytes] = {}
        if chunk == 1:
            base_text = render(applied)
            keys = {i: change_key(base_text, render(applied | {i})) for i in remaining}
            if park and not session.retry_stale:
                fresh = [i for i in remaining if keys[i] not in session.stale]
                parked.update(i for i in remaining if keys[i] in session.stale)
                remaining = fresh
        changed = False
        position = 0
        while position < len(remaining):
            starts = range(position, len(remaining), chunk)
            base = applied
            found = session.first_failing(
                render(base | frozenset(remaining[s : s + chunk])) for s in starts
            )
            if keys:
                tried = remaining[position : len(remaining) if found is None else position + found]
                session.stale.update(keys[i] for i in tried)
            if found is None:
                break
            start = position + found * chunk
            applied = applied | frozenset(remaining[start : start + chunk])
            position = start + chunk
            changed = True
        if chunk == 1 and not changed:
            break
        # halving pays while chunks still apply; once a level of several chunks
        # applies nothing, halves rarely do either: go straight to single elements
        chunks = -(-len(remaining) // chunk)
        chunk = 1 if not changed and chunks >= 4 else chunk // 2
    if parked and session.first_failing([render(applied | frozenset(parked))]) is not None:
        applied = applied | frozenset(parked)
    return applied


def _retrying_stale(session: Session, count: int, render: Callable[[frozenset[int]], str]) -> frozenset[int]:
    return apply_greedily(session, count, render, park=False)


#: Phases whose edits often become possible through a change far away: never parked.
_CASCADING_PHASES = frozenset({"delete", "definitions"})


def change_key(before: str, after: str, context: int = 2) -> bytes:
    """A digest of how ``after`` differs from ``before``: the changed lines with ``context`` lines around.

    Equal keys mean the same local edit in the same surroundings, wherever the
    rest of the program has changed since.
    """
    limit = min(len(before), len(after))
    low, high = 0, limit  # the common prefix's length, by bisection over C-speed slice compares
    while low < high:
        middle = (low + high + 1) // 2
        if before[:middle] == after[:middle]:
            low = middle
        else:
            high = middle - 1
    prefix = low
    low, high = 0, limit - prefix
    while low < high:
        middle = (low + high + 1) // 2
        if before[len(before) - middle :] == after[len(after) - middle :]:
            low = middle
        else:
            high = middle - 1
    suffix = low
    start = before.rfind("\n", 0, prefix) + 1  # the changed line's start
    for _ in range(context):
        start = before.rfind("\n", 0, start - 1) + 1 if start > 0 else 0
    end_before, end_after = len(before) - suffix, len(after) - suffix
    tail = end_before
    for _ in range(context + 1):
        found = before.find("\n", tail)
        tail = len(before) if found < 0 else found + 1
    extra = tail - end_before
    digest = hashlib.blake2b(digest_size=16)
    digest.update(before[start:tail].encode("utf-8", "surrogateescape"))
    digest.update(b"\0")
    digest.update(after[start : end_after + extra].encode("utf-8", "surrogateescape"))
    return digest.digest()


def apply_by_ddmin(session: Session, count: int, render: Callable[[frozenset[int]], str]) -> frozenset[int]:
    """The literature's way: ddmin minimises the keep-list; the rest is applied."""
    everything = frozenset(range(count))

    def text_of(kept: Sequence[int]) -> str:
        return render(everything - frozenset(kept))

    def test(kept: Sequence[int]) -> Outcome:
        return session.outcome(text_of(kept))

    def batch(configs: list[Sequence[int]]) -> Iterator[Outcome]:
        return session.outcomes(text_of(c) for c in configs)

    try:
        result = dd(list(range(count)), test, "-", batch=batch)
    except DDPreconditionError:  # the current text no longer fails: nothing to apply
        return frozenset()
    return everything - frozenset(result.failing)


Search = Callable[[Session, int, Callable[[frozenset[int]], str]], frozenset[int]]


# --- passes -------------------------------------------------------------------


def node_pass(session: Session, name: str, tree: Tree, opportunities: list[Opportunity], search: Search) -> bool:
    """Minimise the keep-list of ``opportunities`` on ``tree``; True if the best shrank."""
    if not opportunities:
        return False
    before = session.best_size.key
    stats = session.begin_pass(name)
    reducer = NodeReducer(tree)

    def render(applied: frozenset[int]) -> str:
        merged: dict[int, Edit] = {}
        for index in sorted(applied):
            for node_id, edit in opportunities[index].edits.items():
                merged.setdefault(node_id, edit)
        return reducer.render(merged)

    applied = search(session, len(opportunities), render)
    if applied:
        session.accept(render(applied))
    session.end_pass(stats)
    return session.best_size.key < before


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


def unit_pass(session: Session, name: str, units: list[tuple[int, int]], search: Search) -> bool:
    """Delete units (lines, characters, tokens) of the current best.

    Units cover the text in order, so a candidate is the join of the kept
    ones: no sorting of edits per candidate (character ddmin makes
    thousands of candidates of hundreds of units).
    """
    if not units:
        return False
    text = session.best
    pieces = [text[s:e] for s, e in units]
    head, tail = text[: units[0][0]], text[units[-1][1] :]
    before = session.best_size.key
    stats = session.begin_pass(name)

    def render(applied: frozenset[int]) -> str:
        return head + "".join(p for i, p in enumerate(pieces) if i not in applied) + tail

    applied = search(session, len(units), render)
    if applied:
        session.accept(render(applied))
    session.end_pass(stats)
    return session.best_size.key < before


# --- strategies ---------------------------------------------------------------


@dataclass
class Plan:
    """What a strategy runs with."""

    transforms: list[Transform]
    rounds: int = MAX_ROUNDS
    extras: bool = True
    """Also run the passes that are not transforms: token deletion and comment stripping
    (off when the user restricts the transforms)."""
    parse: Callable[[str], Tree | None] = parse_or_none
    """How to parse a candidate: this interpreter's ``ast``, or another's (``--python``)."""
    foreign_parser: bool = False
    last_parsed: tuple[str, Tree | None] | None = None
    """The last text parsed and its tree (trees are never changed by passes)."""


def _current_tree(session: Session, plan: Plan) -> Tree | None:
    """The tree of the current best, parsed once per text: most passes change nothing."""
    text = session.best
    if plan.last_parsed is None or plan.last_parsed[0] is not text:
        plan.last_parsed = (text, plan.parse(text))
    return plan.last_parsed[1]


def _first_proposals(tree: Tree, transforms: list[Transform], nodes: Sequence[int] | None = None) -> list[Opportunity]:
    """Each node's first proposal among ``transforms`` (in their order): the flat keep-list."""
    wanted = None if nodes is None else set(nodes)
    chosen: dict[int, Opportunity] = {}
    for transform in transforms:
        if isinstance(transform, TextTransform):
            continue
        for opportunity in transform.opportunities(tree):
            if opportunity.rank == 0 and (wanted is None or opportunity.target in wanted):
                chosen.setdefault(opportunity.target, opportunity)
    return [chosen[k] for k in sorted(chosen)]


def run_flat(session: Session, plan: Plan) -> None:
    tree = _current_tree(session, plan)
    if tree is None:
        raise UsageError("the flat strategy needs input that parses")
    node_pass(session, "flat", tree, _first_proposals(tree, plan.transforms), apply_by_ddmin)


def run_hdd(session: Session, plan: Plan) -> None:
    for _ in range(plan.rounds):
        before = session.best_size.key
        depth = 0
        while True:
            tree = _current_tree(session, plan)
            if tree is None:
                raise UsageError("the hdd strategy needs input that parses")
            level = [n.id for n in tree.nodes if n.depth == depth]
            if not level:
                break
            node_pass(session, f"hdd level {depth}", tree, _first_proposals(tree, plan.transforms, level), apply_by_ddmin)
            depth += 1
        if session.best_size.key >= before:
            return


def _statement_level(tree: Tree, node_id: int) -> int:
    return sum(1 for a in tree.ancestors(node_id) if is_statement(tree.nodes[a].kind))


def run_auto(session: Session, plan: Plan) -> None:
    by_name = {t.name: t for t in plan.transforms}
    structural = [t for t in plan.transforms if not isinstance(t, TextTransform)]
    for _ in range(plan.rounds):
        before = session.best_size.key
        if "delete" in by_name:
            _delete_statements(session, plan, by_name["delete"])
            _delete_elements(session, plan, by_name["delete"])
        for transform in structural:
            if transform.name != "delete":
                _ranked_passes(session, plan, transform)
        if plan.extras and session.best_size.tokens <= TOKEN_PASS_LIMIT:
            if plan.foreign_parser:  # checking each candidate would cost an interpreter start
                unit_pass(session, "tokens", tokens_of(session.best), apply_greedily)
            else:
                with session.parsing_candidates_only():
                    unit_pass(session, "tokens", tokens_of(session.best), apply_greedily)
        if session.best_size.key >= before:
            break
    # renaming keeps the program's structure, so it cannot enable the passes above: run it once, last
    for transform in plan.transforms:
        if isinstance(transform, TextTransform):
            tree = _current_tree(session, plan)
            if tree is not None:
                groups = [o.edits for o in transform.text_opportunities(tree)]
                text_pass(session, transform.name, tree.text, groups, apply_greedily)
    if plan.extras:
        strip_comments(session)


def _delete_statements(session: Session, plan: Plan, delete: Transform) -> None:
    """Hierarchical deletion of statements: module level first, then each nesting level."""
    level = 0
    while True:
        tree = _current_tree(session, plan)
        if tree is None:
            return
        proposals = [
            o
            for o in delete.opportunities(tree)
            if is_statement(tree.nodes[o.target].kind) and _statement_level(tree, o.target) == level
        ]
        if not proposals and not any(
            is_statement(n.kind) and _statement_level(tree, n.id) >= level for n in tree.nodes[1:]
        ):
            return
        node_pass(session, f"delete statements, level {level}", tree, proposals, _retrying_stale)
        level += 1


def _delete_elements(session: Session, plan: Plan, delete: Transform) -> None:
    """Hierarchical deletion of everything else that can be dropped, by tree depth.

    One keep-list per depth keeps elements of unrelated sequences apart (a
    20,000-item list and the statement that uses it), so that halving finds
    the removable halves instead of failing on mixed chunks.
    """
    depth = 1
    while True:
        tree = _current_tree(session, plan)
        if tree is None:
            return
        deepest = max(n.depth for n in tree.nodes)
        if depth > deepest:
            return
        proposals = [
            o
            for o in delete.opportunities(tree)
            if tree.nodes[o.target].depth == depth and not is_statement(tree.nodes[o.target].kind)
        ]
        node_pass(session, f"delete, depth {depth}", tree, proposals, _retrying_stale)
        depth += 1


def _ranked_passes(session: Session, plan: Plan, transform: Transform) -> None:
    """One pass per alternative rank of ``transform`` (rank 0 = its most removing proposal)."""
    rank = 0
    while True:
        tree = _current_tree(session, plan)
        if tree is None:
            return
        proposals = [o for o in transform.opportunities(tree) if o.rank == rank]
        if not proposals:
            return
        label = transform.name if rank == 0 else f"{transform.name} #{rank + 1}"
        search = _retrying_stale if transform.phase in _CASCADING_PHASES else apply_greedily
        node_pass(session, label, tree, proposals, search)
        rank += 1


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


def run_units(session: Session, plan: Plan, units: Callable[[str], list[tuple[int, int]]], name: str) -> None:
    unit_pass(session, name, units(session.best), apply_by_ddmin)


RUNNERS: dict[str, Callable[[Session, Plan], None]] = {
    "auto": run_auto,
    "hdd": run_hdd,
    "flat": run_flat,
    "lines": lambda s, p: run_units(s, p, lines_of, "lines"),
    "chars": lambda s, p: run_units(s, p, chars_of, "chars"),
    "tokens": lambda s, p: run_units(s, p, tokens_of, "tokens"),
}


def run_strategy(name: str, session: Session, plan: Plan) -> None:
    """Run strategy ``name`` on ``session``; the best result ends up in ``session.best``."""
    try:
        runner = RUNNERS[name]
    except KeyError:
        raise UsageError(f"unknown strategy {name!r}; choose from {', '.join(STRATEGIES)}") from None
    runner(session, plan)
