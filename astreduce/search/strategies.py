"""Strategies: drive delta debugging over keep-lists until the candidate stops shrinking.

A *strategy* is a sequence of *passes*; a pass finds one keep-list of
opportunities on one parse of the current best and lets a search
(:mod:`astreduce.search.greedy`) choose which to apply. Every candidate is
tested through the session (:mod:`astreduce.search.session`), whose scheduler
decides where and when tests run; nothing here knows about ``-j``.

Invariants every pass keeps:

* **Progress is deterministic.** A pass tests candidates in a fixed order
  derived from the current text only; with a parallel executor the first
  FAIL in that order wins, so the result does not depend on ``-j``.
* **The current state is the session's best.** Every candidate that FAILs
  and is smaller than the best so far becomes the best at once (and is
  written to disk); each pass starts from it.
* **Indices stay valid after a success.** A pass computes its keep-list
  once from one parse of the current text and renders every candidate from
  that same tree; a success only grows the applied set, and the text is
  re-parsed only between passes.
* **Big changes first.** Deletion before replacement, outer statements
  before inner ones, whole keep-lists before halves before single elements.
* **Adaptive batches.** The ``auto`` search
  (:func:`~astreduce.search.greedy.apply_greedily`) tries to apply all of a
  keep-list at once, then halves the chunk size down to one element, then
  sweeps the single elements once; the rounds repeat every pass until none
  applies anything, which makes the result 1-minimal with respect to each.

Strategies:

* ``flat`` — the design card exactly: every node in one keep-list, each
  with its first proposal, minimised by CDD (counter-based delta debugging,
  ICSE 2025; :data:`astreduce.dd.minimise.DEFAULT`, measured by ``bench/bench_dd.py``).
* ``hdd`` — hierarchical delta debugging (Misherghi & Su 2006): CDD level
  by level of the syntax tree, repeated until a sweep changes nothing (HDD*).
* ``auto`` — passes repeated to a fixpoint: statement deletion level by
  level, deletion of any element, definitions, the classic four, hoisting,
  expression hoisting, simplification; token deletion over small results
  only in a round whose tree passes changed nothing; renaming, once, last. Each pass
  sweeps its single opportunities once, parking the stale ones
  (:func:`~astreduce.search.greedy.apply_greedily`); a replacing pass that
  took nothing off sleeps until the confirming round (passes ordered by
  their measured yield: the rounds in between run the ones that pay), and
  a fallback (to-constant's second constant) sleeps until then from the
  start. A
  round that takes off no token and no identifier (bytes alone do not
  count) is followed by a confirming one that runs every pass and tests
  again every single deletion (and every traced value) whose names changed
  since it failed (a use gone far away is what lets a definition go), and
  the rounds end when that one changes nothing too. With ``--exhaustive``
  it tests every one of them again, and the result is 1-minimal with
  respect to every deletion. Then the text passes
  (:mod:`astreduce.search.text_passes`) edit what the tree does not show (a
  trailing comma, a backslash, a run of tokens); if they take tokens off,
  the rounds go on: a fixpoint of both.
* ``lines``, ``chars``, ``tokens`` — plain ddmin over those units, with the
  literature's semantics, for comparisons; they work on any text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from astreduce.errors import UsageError
from astreduce.search.greedy import (
    LookingAhead,
    Memory,
    Search,
    apply_by_dd,
    apply_by_ddmin,
    apply_greedily,
    apply_greedily_confirming,
    sweeping_once,
)
from astreduce.search.schedule import after_rounds, ordered, passes_of, row
from astreduce.search.session import Session
from astreduce.search.unit_passes import chars_of, counts_as_token, lines_of, strip_comments, text_pass, tokens_of, unit_pass
from astreduce.search.text_passes import PASSES, TEXT_PASS_LIMIT, UNPARSABLE_LIMIT, layout_of
from astreduce.source.render import Edit, NodeReducer
from astreduce.source.tree import Tree, is_statement, parse_or_none
from astreduce.transforms import Opportunity, TextTransform, Transform

#: Largest result (in tokens) on which ``auto`` runs its token pass: where the text passes run.
#: Above it, the candidates of single tokens gone that still parse are the tree passes' own
#: edits in other spellings (measured: 0 tokens in 415 tests on the corpora results of 423
#: to 1,047 tokens); the crashes whose text matters are small by then.
TOKEN_PASS_LIMIT = TEXT_PASS_LIMIT
#: Rounds of ``auto`` before it stops even if it still makes progress (a safety net).
MAX_ROUNDS = 30

# --- passes -------------------------------------------------------------------


def node_pass(session: Session, name: str, tree: Tree, opportunities: list[Opportunity], search: Search) -> bool:
    """Minimise the keep-list of ``opportunities`` on ``tree``; True if the best shrank."""
    if not opportunities:
        return False
    before = session.best_size.key
    stats = session.begin_pass(name)
    reducer = NodeReducer(tree)

    def render(applied: frozenset[int]) -> str:
        return _render_applied(reducer, opportunities, applied)

    applied = search(session, len(opportunities), render)
    if applied:
        session.accept(render(applied))
    session.end_pass(stats)
    return session.best_size.key < before


def _render_applied(reducer: NodeReducer, opportunities: list[Opportunity], applied: frozenset[int]) -> str:
    merged: dict[int, Edit] = {}
    for index in sorted(applied):
        for node_id, edit in opportunities[index].edits.items():
            merged.setdefault(node_id, edit)
    return reducer.render(merged)


# --- strategies ---------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """What a strategy runs with: configuration, built once and complete; a run's state is its own (:class:`StrategyRun`)."""

    transforms: tuple[Transform, ...]
    """In a round's order (the schedule: :func:`~astreduce.search.schedule.ordered`)."""
    rounds: int = MAX_ROUNDS
    extras: bool = True
    """Also run the passes that are not transforms: token deletion and comment stripping
    (off when the user restricts the transforms)."""
    parse: Callable[[str], Tree | None] = parse_or_none
    """How to parse a candidate: this interpreter's ``ast``, or another's (``--python``)."""
    foreign_parser: bool = False
    unparsable_text: bool = False
    """The oracle runs a command or a test script: the linear text passes may test candidates
    that do not parse (a tool's crash may need such text); see :func:`run_text_passes`."""
    exhaustive: bool = False
    """Test every stale single edit one by one again, in every round (``--exhaustive``)."""
    start: tuple[str, Tree | None] | None = None
    """The text the search starts from and its tree, when the job parsed it already (a 100 KB original: 60 ms)."""
    last_passes: Literal["also", "never", "only"] = "also"
    """Whether ``auto`` ends with the passes that come once, last (renaming, comment stripping), or runs only them:
    a tree leaves them to its fixpoint (a file renamed every round would match none of its stale edits)."""

    @classmethod
    def of(cls, transforms: Sequence[Transform], **settings: Any) -> Plan:
        """A plan whose transforms run in the schedule's order."""
        return cls(tuple(ordered(list(transforms))), **settings)


class StrategyRun:
    """The state of one strategy's run over one session: what its passes found and remember.

    Its trees (each text parsed once, from the tree before it), the
    transforms' opportunities and the deletion levels on the last tree,
    ``auto``'s round (whether it confirms, which passes sleep, which ran,
    the pass it looked ahead to) and the greedy searches' memory of stale
    edits and of how often chunks paid.
    """

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.last_parsed: tuple[str, Tree | None] | None = plan.start
        """The last text parsed and its tree (trees are never changed by passes)."""
        self.memory = Memory(retry_stale=plan.exhaustive)
        self.confirming = False
        """``auto``'s current round tests again every stale single deletion whose names changed (see :func:`run_auto`)."""
        self.offers: tuple[Tree, dict[str, list[Opportunity]]] | None = None
        """The transforms' opportunities on the last tree they were asked of (see :func:`_offered`)."""
        self.levels: tuple[Tree, dict[tuple[str, str], _Levels]] | None = None
        """The deletion phases' proposals by level on the last tree they were asked of (see :func:`_levels`)."""
        self.next_pass: tuple[Tree, tuple[int, int], _NodePass | None] | None = None
        """The last pass ``auto`` looked for (tree, cursor, pass): looking ahead finds it once."""
        self.again = False
        """A tree's file reduced again (its context changed): the first round tests every deletion alone again
        (what another file stopped needing may go, whatever its names); the other passes park their stale edits."""
        self.settled = True
        """No rounds under way: the last reached their fixpoint (or none ran). Rounds cut short by ``plan.rounds`` are
        resumed by the next :func:`run_auto` on this run, in the round due next (a tree gives each file one a visit)."""
        self.dormant: set[str] = set()
        """Labels of ``auto``'s replacing passes that took nothing off the last time they ran:
        skipped until a confirming round (see :func:`run_auto`)."""
        self.ran: set[str] = set()
        """Labels of ``auto``'s replacing passes that have run: a fallback rank
        (:attr:`~astreduce.search.schedule.Row.fallback_ranks`) sleeps until its first run, in a confirming round."""
        self.replacing = sweeping_once(apply_greedily, self.memory)
        """The search of a replacing pass (and the token pass)."""
        self.confirmed = sweeping_once(apply_greedily_confirming, self.memory)
        """The search of a deletion pass in a confirming round."""
        self.retrying: LookingAhead = sweeping_once(partial(apply_greedily, park="never"), self.memory)
        """The search of a deletion pass in the first round of a file reduced again."""
        self.greedy: Search = partial(apply_greedily, memory=self.memory)
        """The search of the text passes and the rename pass (more than one sweep)."""

    def tree_of(self, text: str) -> Tree | None:
        """``text``'s tree, parsed once per text (from the tree before it, whose unchanged statements are copied)."""
        if self.last_parsed is None or self.last_parsed[0] != text:
            last = self.last_parsed[1] if self.last_parsed is not None else None
            if self.plan.parse is parse_or_none and last is not None:  # the statements a pass left alone are copied
                self.last_parsed = (text, parse_or_none(text, like=last))
            else:
                self.last_parsed = (text, self.plan.parse(text))
        return self.last_parsed[1]

    def current_tree(self, session: Session) -> Tree | None:
        """The tree of the current best, parsed once per text: most passes change nothing."""
        return self.tree_of(session.best)


def _first_proposals(tree: Tree, transforms: Sequence[Transform], nodes: Sequence[int] | None = None) -> list[Opportunity]:
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
    tree = StrategyRun(plan).current_tree(session)
    if tree is None:
        raise UsageError("the flat strategy needs input that parses")
    node_pass(session, "flat", tree, _first_proposals(tree, plan.transforms), apply_by_dd)


def run_hdd(session: Session, plan: Plan) -> None:
    run = StrategyRun(plan)
    for _ in range(plan.rounds):
        before = session.best_size.key
        depth = 0
        while True:
            tree = run.current_tree(session)
            if tree is None:
                raise UsageError("the hdd strategy needs input that parses")
            level = [n.id for n in tree.nodes if n.depth == depth]
            if not level:
                break
            node_pass(session, f"hdd level {depth}", tree, _first_proposals(tree, plan.transforms, level), apply_by_dd)
            depth += 1
        if session.best_size.key >= before:
            return


def statement_levels(tree: Tree) -> dict[int, int]:
    """Each statement's level: how many statements it is nested in (in one pass: a parent comes first)."""
    around = [0] * len(tree.nodes)  # the statements a node is, or is nested in
    levels: dict[int, int] = {}
    for node in tree.nodes[1:]:
        level = around[node.parent]
        if is_statement(node.kind):
            levels[node.id] = level
            level += 1
        around[node.id] = level
    return levels


@dataclass(frozen=True)
class _Levels:
    """A deletion phase's proposals on one tree by level (statements: nesting; elements: depth)."""

    proposals: dict[int, list[Opportunity]]
    deepest: int
    """The deepest level a node of the phase's kind has (its passes go on while one is left, proposals or not)."""


def _offered(run: StrategyRun, tree: Tree, transform: Transform) -> list[Opportunity]:
    """The opportunities of ``transform`` on ``tree``, found once per tree: a round looks for its next
    pass on the same tree again and again while passes change nothing."""
    if run.offers is None or run.offers[0] is not tree:
        run.offers = (tree, {})
    known = run.offers[1]
    if transform.name not in known:
        known[transform.name] = list(transform.opportunities(tree))
    return known[transform.name]


def _levels(run: StrategyRun, tree: Tree, transform: Transform, kind: str) -> _Levels:
    """The proposals of ``transform`` on ``tree`` by level, found once per tree and phase (not once per level)."""
    if run.levels is None or run.levels[0] is not tree:
        run.levels = (tree, {})
    known = run.levels[1]
    if (kind, transform.name) not in known:
        by_level: dict[int, list[Opportunity]] = {}
        if kind == "statements":
            level = statement_levels(tree)
            for o in _offered(run, tree, transform):
                if o.target in level:
                    by_level.setdefault(level[o.target], []).append(o)
            deepest = max(level.values(), default=-1)
        else:
            for o in _offered(run, tree, transform):
                if not is_statement(tree.nodes[o.target].kind):
                    by_level.setdefault(tree.nodes[o.target].depth, []).append(o)
            deepest = max(n.depth for n in tree.nodes)
        known[(kind, transform.name)] = _Levels(by_level, deepest)
    return known[(kind, transform.name)]


def _deleting(run: StrategyRun) -> LookingAhead:
    """The search of a deletion pass: it parks stale singles like any other pass, except in a
    confirming round (see :func:`run_auto`), which tests again those whose names changed, and in
    the first round of a tree's file reduced again (:attr:`StrategyRun.again`), which tests them all."""
    if run.confirming:
        return run.confirmed
    return run.retrying if run.again else run.replacing


@dataclass(frozen=True)
class _NodePass:
    """A pass of ``auto`` found on a tree: where it is in the round, its label, keep-list and search."""

    cursor: tuple[int, int]
    """(phase, step): the phase's index in the round and its level, depth or rank."""
    label: str
    tree: Tree
    proposals: list[Opportunity]
    search: LookingAhead


def _find_pass(run: StrategyRun, phases: list[tuple[str, Transform]], tree: Tree, cursor: tuple[int, int]) -> _NodePass | None:
    """The first pass of the round at or after ``cursor`` that has proposals on ``tree``.

    Phases: ``statements`` (hierarchical deletion of statements, module level
    first, then each nesting level), ``elements`` (deletion of everything else,
    one keep-list per tree depth, so that the elements of unrelated sequences
    — a 20,000-item list and the statement that uses it — stay apart and
    halving finds the removable halves), and ``ranked`` (one pass per
    alternative rank of a transform; rank 0 is its most removing proposal).
    """
    memo = run.next_pass
    if memo is not None and memo[0] is tree and memo[1] == cursor:
        return memo[2]
    phase, step = cursor
    found: _NodePass | None = None
    while found is None and phase < len(phases):
        kind, transform = phases[phase]
        if kind in ("statements", "elements"):
            step = max(step, 1) if kind == "elements" else step  # elements: from depth 1 (the module is 0)
            levels = _levels(run, tree, transform, kind)
            if step > levels.deepest:
                phase, step = phase + 1, 0
                continue
            proposals = levels.proposals.get(step, [])
            label = f"delete statements, level {step}" if kind == "statements" else f"delete, depth {step}"
            search = _deleting(run)
        else:
            label = transform.name if step == 0 else f"{transform.name} #{step + 1}"
            ranked = _offered(run, tree, transform)
            if not any(o.rank >= step for o in ranked):
                phase, step = phase + 1, 0
                continue
            scheduled = row(transform.name)
            fallback = step > 0 and scheduled.fallback_ranks and label not in run.ran
            if (label in run.dormant or fallback) and not run.confirming:
                step += 1
                continue
            proposals = [o for o in ranked if o.rank == step]
            search = _deleting(run) if scheduled.cascading else run.replacing
        if proposals:
            found = _NodePass((phase, step), label, tree, proposals, search)
        else:
            step += 1
    run.next_pass = (tree, cursor, found)
    return found


def _first_candidate(found: _NodePass) -> str:
    """What a pass tests first: every proposal applied at once."""
    return _render_applied(NodeReducer(found.tree), found.proposals, frozenset(range(len(found.proposals))))


def run_auto(session: Session, plan: Plan, run: StrategyRun | None = None) -> None:
    """``auto`` on ``session``; ``run``: what an earlier run on the same text's file learnt (a tree's later round),
    else a run of its own (a pass's yield on another file says little about this one)."""
    run = run if run is not None else StrategyRun(plan)
    if run.settled:  # else resumed: its next round confirms if its last one took nothing off
        run.confirming = False
    if plan.last_passes != "only":
        _run_rounds(session, plan, run)
    if plan.last_passes != "never":
        _run_last_passes(session, plan, run)


def _run_rounds(session: Session, plan: Plan, run: StrategyRun) -> None:
    """``auto``'s rounds to a fixpoint of the tree and text passes, or ``plan.rounds`` of them (then not settled)."""
    phases = [(kind, t) for kind, t in passes_of(list(plan.transforms)) if not after_rounds(t.name)]
    run.settled = False
    for _ in range(plan.rounds):
        run.next_pass = None  # a pass found in the last round has that round's search
        before = _progress_key(session)
        cursor = (0, 0)
        while True:
            tree = run.current_tree(session)
            found = _find_pass(run, phases, tree, cursor) if tree is not None else None
            if found is None:
                break
            following = (found.cursor[0], found.cursor[1] + 1)

            def lookahead(text: str, cursor: tuple[int, int] = following) -> str | None:
                # the next pass's first candidate, should this pass end with ``text``
                tree = run.tree_of(text)
                nxt = _find_pass(run, phases, tree, cursor) if tree is not None else None
                return _first_candidate(nxt) if nxt is not None else None

            taken = _progress_key(session)
            node_pass(session, found.label, found.tree, found.proposals, partial(found.search, lookahead=lookahead))
            if phases[found.cursor[0]][0] == "ranked":
                run.ran.add(found.label)
                if _progress_key(session) < taken:
                    run.dormant.discard(found.label)
                else:
                    run.dormant.add(found.label)
            cursor = following
        run.again = False  # only a reduction's first round tests every deletion alone again
        # tokens only once the tree passes stall: on a tree that still shrinks they test what the next round removes anyway
        if plan.extras and session.best_size.tokens <= TOKEN_PASS_LIMIT and _progress_key(session) >= before:
            if plan.foreign_parser:  # checking each candidate would cost an interpreter start
                unit_pass(session, "tokens", tokens_of(session.best), run.replacing, counts_as_token)
            else:
                with session.parsing_candidates_only():
                    unit_pass(session, "tokens", tokens_of(session.best), run.replacing, counts_as_token)
        if _progress_key(session) < before:
            run.confirming = False
        elif run.confirming or plan.exhaustive:
            # the tree passes are at their fixpoint: the text passes, and more rounds if they took tokens off
            if plan.extras and run_text_passes(session, run):
                run.confirming = False
                continue
            run.settled = True
            break
        else:
            run.confirming = True


def _run_last_passes(session: Session, plan: Plan, run: StrategyRun) -> None:
    """The last phase's passes (renaming) keep the program's structure, so they cannot enable the others: once, last."""
    for transform in plan.transforms:
        if after_rounds(transform.name) and isinstance(transform, TextTransform):  # the load checked both go together
            tree = run.current_tree(session)
            if tree is not None:
                groups = [o.edits for o in transform.text_opportunities(tree)]
                text_pass(session, transform.name, tree.text, groups, run.greedy)
    if plan.extras:
        strip_comments(session)


def _progress_key(session: Session) -> tuple[int, int]:
    """What makes ``auto`` run another round: fewer tokens or fewer identifiers.

    Bytes alone do not: a round that only shortened a string or turned
    ``None`` into ``0`` leaves every pass with the same opportunities, and
    the round after it tested them all again for nothing (calc_tokenizer:
    five such rounds, 1,000 tests). Fewer identifiers do: a name replaced by
    a constant unties a use from its definition, which may then go.
    """
    return session.best_size.key[:2]


def run_text_passes(session: Session, run: StrategyRun) -> bool:
    """One round of the text passes on the current best (up to :data:`TEXT_PASS_LIMIT`
    tokens); True if it has fewer tokens, so that the tree passes may find more.

    A change of bytes alone (a line joined, a blank dropped) leaves the tree as
    it was: another round of tree passes would test the same edits again (on
    stdlib_textwrap, 224 tests for nothing), so it does not count.

    Which candidates are tested when they do not parse:

    * under the exec oracle, none: they are UNRESOLVED anyway, and the
      oracle's own compile (``parsing_candidates_only``) answers them
      without a test;
    * under a command or test-script oracle (``plan.unparsable_text``), those
      of the linear passes, on results of at most :data:`UNPARSABLE_LIMIT`
      tokens: a tool may well crash on text Python rejects, and a linear
      pass makes few of them; never those of the token runs, which are
      nearly all broken (they would be most of the tests);
    * under another interpreter's parser (``--python`` newer than this one)
      that interpreter checks (a round trip each), and the token runs,
      whose thousands of checks would cost seconds, are skipped.
    """
    before = session.best_size.tokens
    if before > TEXT_PASS_LIMIT:
        return False
    plan = run.plan
    check = (lambda text: plan.parse(text) is not None) if plan.foreign_parser else None
    for text_pass_ in PASSES:
        if text_pass_.quadratic and plan.foreign_parser:
            continue
        layout = layout_of(session.best)
        if layout is None:
            break
        groups = text_pass_.propose(layout, run.current_tree(session))
        tolerant = plan.unparsable_text and not text_pass_.quadratic and session.best_size.tokens <= UNPARSABLE_LIMIT
        with nullcontext() if tolerant else session.parsing_candidates_only(check):
            text_pass(session, text_pass_.name, layout.text, groups, run.greedy)
    return session.best_size.tokens < before


def run_units(session: Session, plan: Plan, units: Callable[[str], list[tuple[int, int]]], name: str) -> None:
    unit_pass(session, name, units(session.best), apply_by_ddmin)


@dataclass(frozen=True)
class Strategy:
    """A strategy, as a job and the command line see it: adding one is adding a record to :data:`STRATEGIES`."""

    name: str
    run: Callable[[Session, Plan], None]
    on_trees: bool
    """It works on the syntax tree: the input must parse, and candidates alike by byte code share a verdict;
    otherwise on units of text (the literature's ddmin), counted as the literature counts them."""
    summary: str


#: Every strategy, by name, in the order ``--help`` lists them.
STRATEGIES: dict[str, Strategy] = {
    strategy.name: strategy
    for strategy in (
        Strategy("auto", run_auto, True, "every transform, passes to a fixpoint, then the text passes"),
        Strategy("hdd", run_hdd, True, "hierarchical delta debugging over the syntax tree, level by level (HDD*)"),
        Strategy("flat", run_flat, True, "every node's first proposal in one keep-list, minimised by CDD"),
        Strategy("lines", lambda s, p: run_units(s, p, lines_of, "lines"), False, "ddmin over lines"),
        Strategy("chars", lambda s, p: run_units(s, p, chars_of, "chars"), False, "ddmin over characters"),
        Strategy("tokens", lambda s, p: run_units(s, p, tokens_of, "tokens"), False, "ddmin over tokens"),
    )
}


def run_strategy(name: str, session: Session, plan: Plan, run: StrategyRun | None = None) -> None:
    """Run strategy ``name`` on ``session``; the best result ends up in ``session.best``.

    ``run``: what ``auto`` learnt on this file before (its stale edits, the passes that took nothing), so that
    a tree's later rounds test what changed; the other strategies start afresh.
    """
    try:
        strategy = STRATEGIES[name]
    except KeyError:
        raise UsageError(f"unknown strategy {name!r}; choose from {', '.join(STRATEGIES)}") from None
    if run is not None and strategy.run is run_auto:
        run_auto(session, plan, run)
    else:
        strategy.run(session, plan)
