"""Multi-file reduction: a tree of files (a package, a test and what it imports) to a smallest tree.

``astreduce reduce DIR`` (or ``FILE FILE ...``) runs these passes, in rounds,
until a round changes nothing (C-Reduce's fixpoint):

1. **delete files** — whole files go, greedily: all at once, then halves,
   down to single files (the entry file stays); a module nothing needs costs
   one test instead of a reduction;
2. **reduce each file** while the other files stay fixed: each candidate is
   the whole tree with that one file changed. Importers come before the
   modules they import, and when a file has lost imports the deletion pass
   runs again at once, so a module that only those imports kept alive goes
   whole instead of being reduced in vain. The first round is a cheap sweep
   (after annotations and unused imports go in every file at once, ``sweeps.py``):
   hierarchical statement deletion only, which removes most of what a large
   package does not need for a few tests per statement. Later rounds run the
   single-file strategy (``auto`` by default: every transform, to a
   fixpoint), one round of ``auto`` per file and round of the tree, so that
   every file gets each level of passes before any gets the next; a file at
   its fixpoint is reduced again only when the tree has changed since its
   last reduction, with what ``auto`` learnt on it (its stale edits);
3. **merge modules** — a module with one importer is merged into it
   (:mod:`astreduce.reduce.merge`). Merging after reducing meets small modules (few
   name clashes); the next round's reduction then works across the former
   boundary (inlining a helper, dropping a parameter with its arguments).

At the fixpoint each Python file is renamed (renaming enables no other
pass). Files that are not Python, or do not parse, are reduced by lines;
binary files are only kept or deleted.

A tree is smaller when it has fewer files, then fewer tokens, identifiers,
bytes: a merge that still reproduces is progress even when it saves no
token, and every accepted change makes the tree smaller, so the rounds end.

Nothing here is a second reducer: candidates go through
:class:`~astreduce.search.session.Session` (outcome cache, ``-j`` speculation in the
search's own order, stop requests, counters), per file with the file's text,
and for the passes over whole files with the tree encoded as one text
(:func:`~astreduce.oracles.tree.encode_tree`). The oracle is
:class:`~astreduce.oracles.tree.TreeOracle`: every test runs in a fresh copy of
the whole tree.
"""

from __future__ import annotations

import re
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from astreduce.errors import NotReproducibleError, ReductionStopped, UsageError
from astreduce.source.imports import ImportGraph, modules_of, references
from astreduce.source.measure import Size
from astreduce.source.unbound import RunReads, Unbinding, sure_to_differ
from astreduce.reduce.merge import merge, mergeable
from astreduce.oracles.options import REDUCING, OracleOptions, blame_confinement
from astreduce.outcome import Outcome
from astreduce.run.trace import TreeTracer
from astreduce.reduce.single import Planning, ReduceConfig, budget_spent, configure_tracing, stopped_if_interrupted
from astreduce.reduce.tree_result import TreeResult, TreeSizes, is_python
from astreduce.reduce.unexecuted import (
    Executed, TracedRun, executed_reads_by_file, idle_files, idle_statements, measure_executed, needed_statements, original_coverage, read_data,
    stale, still_asked, traced,
)
from astreduce.search.cache import OutcomeStore, default_cache_dir
from astreduce.search.session import COUNTERS, Budget, Interrupted, PassStats, ProgressEvent, Session, StopRequest, protected_lines
from astreduce.search.greedy import Memory, apply_greedily
from astreduce.search.strategies import Plan, run_strategy
from astreduce.search.unit_passes import lines_of, unit_pass
from astreduce.reduce.sweeps import ACROSS_FILES, narrowed, sweep_plans
from astreduce.reduce.verify import format_with_black, verify_and_format
from astreduce.reduce.file_rounds import FileRounds, tree_digest
from astreduce.files import FileTree, check_output_dir, default_output_dir, read_input, resolve_entry
from astreduce.writes import TreeWriter
from astreduce.oracles import Oracle, Verdict
from astreduce.oracles.tree import EncodedTree, FileInTree, TreeOracle, decode_tree, encode_tree, entry_tracer
from astreduce.oracles.place import Place, place_of
from astreduce.reduce.guards import Guarded, guard
from astreduce.reduce.provenance import Provenance, annotated
from astreduce.source.origins import Lineage

#: Rounds of passes before stopping even if they still make progress (a safety net).
MAX_ROUNDS = 100
#: Bytes a binary file's text holds after decoding: a NUL, or bytes that are not UTF-8.
_BINARY = re.compile("[\x00\udc80-\udcff]")
#: The session counters a tree's result reports as counts, added up over its sessions.
COUNTED = ("speculative", "syntax_rejections", "unbound_rejections", "failing_tests", "unresolved_tests")


class TreeReducer:
    """The passes over one tree, to a fixpoint; :meth:`run`, then :meth:`finish`."""

    def __init__(
        self, original: Mapping[str, str], oracle: Oracle[FileTree], plan: Plan, *, strategy: str = "auto", jobs: int = 1,
        protected: frozenset[str] = frozenset(), fixed: frozenset[str] = frozenset(),
        tracer: Callable[[str, Mapping[str, str]], TreeTracer | None] | None = None, store: OutcomeStore | None = None,
        exhaustive: bool = False, budget: Budget | None = None, keep: str | None = None,
        on_improve: Callable[[dict[str, str]], None] | None = None, on_progress: Callable[[ProgressEvent], None] | None = None,
        stop: StopRequest | None = None, lineage: Lineage | None = None, place: Place | None = None, annotate: bool = False,
        executed: Executed | None = None, trace: TracedRun | None = None,
    ) -> None:
        self.oracle = oracle
        self.executed = executed
        """What the original's run executed, when measured: its idle files and statements go first (:meth:`run`)."""
        self.trace = trace
        """How coverage is measured again on the best tree when it is stale (:func:`~astreduce.reduce.unexecuted.stale`)."""
        known = executed is not None and executed.known
        self.needed = needed_statements(original, executed) if known else {}
        """Per file, the top-level statements the sweeps do not propose: the last measured run reads what they bind."""
        self.reads = executed_reads_by_file(original, executed) if known and sure_to_differ(oracle.traits.exception) else {}
        """Per file, what the last measured run read of it (none when a ``NameError`` may be the target): a candidate that
        unbinds one of its names is UNRESOLVED untested."""
        self.measured: dict[str, str] = dict(original)
        """The tree coverage was last measured on, less what its groups then cut: code that never ran takes
        nothing from what runs, so only what the later passes take can make the coverage stale."""
        self.lineage = lineage if lineage is not None else Lineage(original)
        """The origins of the latest improvement's lines (each saved tree moves it on)."""
        self.place = place
        """Where the original failed, when candidates must fail there too."""
        self.annotate = annotate
        """End the result's lines with their origins as comments (``--annotate``), when that still reproduces."""
        self.plan = replace(plan, last_passes="never") if strategy == "auto" else plan
        """The full rounds' plan; renaming comes once per file, at the tree's fixpoint (:meth:`_last_passes`)."""
        self.visit = replace(self.plan, rounds=1) if strategy == "auto" else self.plan
        """What a full round gives each file: one round of ``auto``, resumed in the next full round until its
        fixpoint, so that every file gets each level of passes before any gets the next."""
        self.strategy = strategy
        self.jobs = jobs
        self.fixed = fixed
        """Files that are only kept or deleted, never changed (a project's files that the node does not import)."""
        self.tracer = tracer
        """How ``value-from-trace`` records a file's values in the tree (``None``: nothing is traced)."""
        self.store = store
        """The persistent outcome cache (``--resume``): each session keeps its outcomes in a scoped view of it."""
        self.exhaustive = exhaustive
        self.budget = budget
        """Tests and seconds the whole reduction may spend, shared by every session."""
        self.keep = keep
        kept = frozenset(p for p, t in original.items() if protected_lines(t, keep))
        self.protected = protected | kept  # a file with a kept line is neither deleted nor merged
        self.on_improve = on_improve
        self.on_progress = on_progress
        self.stop = stop
        self.sizes = TreeSizes()
        self.original = dict(original)
        self.best = dict(original)
        self.best_size = self.original_size = self.sizes.tree(original)
        self.saved, self.saved_key = self.best, self.best_size.key
        encoded = EncodedTree(oracle)
        self.trees = Session(
            encode_tree(original), encoded.judge, on_improve=self._improved, start=encoded.start, jobs=jobs,
            on_progress=self._progress_of(None), store=store.scoped("trees") if store is not None else None, budget=budget, stop=stop,
        )
        self.memory = Memory()  # what the deletions of whole files remember from round to round (stale ones are parked)
        self.idle_memory = Memory()
        """The idle statements that could not go alone: when coverage is measured again, those still idle are tried
        together at the end of their file's group, not one by one again."""
        self.current: Session | None = None
        self.totals: dict[str, float] = dict.fromkeys(COUNTERS, 0)
        self.passes: list[PassStats] = []
        self.history: list[tuple[int, int]] = [(0, self.best_size.tokens)]
        self.merges: list[tuple[str, str]] = []
        self.rounds = FileRounds(self.plan)
        """What the full rounds remember of each file between visits."""

    # --- counters and state ---------------------------------------------------

    def _count(self, name: str) -> Any:
        sessions = [self.trees] + ([self.current] if self.current is not None else [])
        return self.totals[name] + sum(getattr(s, name) for s in sessions)

    @property
    def tests(self) -> int:
        return int(self._count("tests"))

    @property
    def cache_hits(self) -> int:
        return int(self._count("cache_hits"))

    def accept(self, tree: dict[str, str]) -> bool:
        """Make ``tree`` (known to reproduce) the best if it is smaller; True if it was."""
        size = self.sizes.tree(tree)
        if size.key >= self.best_size.key:
            return False
        self.best, self.best_size = tree, size
        self.history.append((self.tests, size.tokens))
        self._offer(tree)
        return True

    def _offer(self, tree: dict[str, str]) -> None:
        """Save ``tree`` (known to reproduce) when it is smaller than what is saved: never lose work."""
        key = self.sizes.tree(tree).key
        if key < self.saved_key:
            self.saved, self.saved_key = tree, key
            self.lineage.advance(tree)
            if self.on_improve is not None:
                self.on_improve(tree)

    def _improved(self, text: str) -> None:
        self._offer(decode_tree(text))

    def _progress_of(self, path: str | None) -> Callable[[ProgressEvent], None]:
        def report(event: ProgressEvent) -> None:
            if self.on_progress is None:
                return
            tree = self.best_size.as_size()
            before = self.best[path] if path is not None else ""

            def best() -> Size:
                if path is None:
                    return tree
                old, new = self.sizes.file(before), event.best  # the file's session measures the file: add the rest
                return Size(
                    tree.tokens - old.tokens + new.tokens, tree.bytes - old.bytes + new.bytes,
                    tree.lines - old.lines + new.lines, tree.identifiers - old.identifiers + new.identifiers,
                )

            name = event.pass_name if path is None else f"{path}: {event.pass_name}"
            self.on_progress(ProgressEvent(name, self.tests, self.cache_hits, best, self.original_size.as_size(), (len(self.best), len(self.original))))

        return report

    def _check_stop(self) -> None:
        if self.trees.stopping():
            raise Interrupted

    def _begin(self, name: str) -> PassStats:
        self.trees.begin_pass(name)  # names the pass in progress events; its own figures are per text
        return PassStats(name, tests=self.tests, seconds=time.monotonic(), tokens_before=self.best_size.tokens)

    def _end(self, stats: PassStats) -> None:
        stats.tests = self.tests - stats.tests
        stats.seconds = time.monotonic() - stats.seconds
        stats.tokens_after = self.best_size.tokens
        self.passes.append(stats)

    # --- passes -------------------------------------------------------------------

    def run(self, rounds: int = MAX_ROUNDS) -> None:
        """Run the passes until a round changes nothing; raises ``Interrupted`` on a stop request."""
        plans = sweep_plans(self.plan, self.strategy) + [self.plan] * rounds
        executed = self.executed
        cut = executed is not None and executed.known
        if executed is not None and cut:
            self._cut_idle_files(executed)
            self._reduce_read_data(executed)
            if not self._measure_again():
                self._cut_idle_statements(executed)
        for index, plan in enumerate(plans):
            self._measure_again()
            before = self.best_size.key
            if plan is not self.plan:
                self._across_files()
            if index or not cut:  # after the cut, every file left is one the run imported or read: none goes whole yet
                self._delete_files()
            self._reduce_files(plan)
            self._merge_modules()
            if plan is self.plan and self.best_size.key >= before and not self.rounds.unsettled(self.best):
                break
        self._last_passes()

    def _last_passes(self) -> None:
        """Renaming, once per file at the tree's fixpoint: it enables no other pass."""
        if self.plan.last_passes == "never":
            for path in [p for p in sorted(self.best) if p not in self.fixed and is_python(p, self.best[p])]:
                self._check_stop()
                self._reduce_file(path, replace(self.plan, last_passes="only"))

    def _greedy_pass(self, name: str, count: int, render: Callable[[frozenset[int]], str], memory: Memory | None = None) -> bool:
        """A pass of the greedy search over ``count`` changes of the best tree (``render``: the tree with the applied
        ones, encoded); whether the smaller tree was kept."""
        stats = self._begin(name)
        applied = apply_greedily(self.trees, count, render, memory=memory)
        changed = bool(applied) and self.accept(decode_tree(render(applied)))
        self._end(stats)
        return changed

    def _without_files(self, paths: list[str]) -> Callable[[frozenset[int]], str]:
        """The best tree without the chosen ``paths`` (by index), encoded."""
        tree = self.best

        def render(applied: frozenset[int]) -> str:
            gone = {paths[i] for i in applied}
            return encode_tree({p: t for p, t in tree.items() if p not in gone})

        return render

    def _delete_files(self, only: set[str] | None = None) -> bool:
        """Delete whole files, greedily: all, halves, ..., single ones (``only``: of these files)."""
        self._check_stop()
        paths = [p for p in sorted(self.best) if p not in self.protected and (only is None or p in only)]
        name = "delete files" if only is None else f"delete files no longer imported ({len(paths)})"
        return bool(paths) and self._greedy_pass(name, len(paths), self._without_files(paths), self.memory)

    def _reducible(self, path: str) -> bool:
        """Whether a pass may change ``path``: a Python file, neither fixed nor holding a kept line."""
        text = self.best[path]
        return path not in self.fixed and is_python(path, text) and not protected_lines(text, self.keep)

    def _across_files(self) -> None:
        """Annotations, then the imports nothing names, dropped in every file at once (:data:`~astreduce.reduce.sweeps.ACROSS_FILES`)."""
        for across in ACROSS_FILES:
            self._check_stop()
            found = across(self.best, self._reducible, self.plan.parse)
            if found.edits:
                self._greedy_pass(found.name, len(found.edits), lambda applied: encode_tree(found.render(applied)), self.memory)

    def _cut_idle_files(self, executed: Executed) -> None:
        """The files the run never imported nor read, in one group."""
        self._check_stop()
        files = idle_files(self.best, executed, self.protected)
        if files and self._greedy_pass(f"unexecuted files ({len(files)})", len(files), self._without_files(files)):
            self.measured = {p: t for p, t in self.measured.items() if p in self.best}  # no staler without them

    def _reduce_read_data(self, executed: Executed) -> None:
        """The data files the run reads (a unit table), largest first: every test reads less (pint: ~1 s a test
        before its table is cut, ~0.2 s after), and a smaller table runs less code, which coverage then shows."""
        for path in sorted(read_data(executed), key=lambda p: (-len(self.best.get(p, "")), p)):
            self._check_stop()
            if path in self.best and path not in self.fixed and path not in self.protected:
                self._reduce_file(path, self.plan)

    def _cut_idle_statements(self, executed: Executed) -> None:
        """In each file, largest first, the statements the run never executed: a group per file."""
        assert executed.lines is not None
        for path in sorted(self.best, key=lambda p: (-len(self.best[p]), p)):  # the largest files first
            self._check_stop()
            if not self._reducible(path):
                continue
            idle = idle_statements(self.best[path], executed.lines.get(path, frozenset()))
            if idle is None:
                continue
            base = self.best

            def without_statements(applied: frozenset[int]) -> str:
                return encode_tree({**base, path: idle.without(sorted(applied))})

            name = f"unexecuted: {path} ({len(idle.idle)} statements)"
            if self._greedy_pass(name, len(idle.idle), without_statements, self.idle_memory):
                self.measured[path] = self.best[path]  # what never ran went: the coverage is no staler

    def _measure_again(self) -> bool:
        """Coverage measured again on the best tree when the last measure is stale, and what it shows idle cut;
        True if it was measured again."""
        executed = self.executed
        if executed is None or not executed.known or self.trace is None:
            return False
        if not stale(executed, self.measured, self.best, lambda text: self.sizes.file(text).tokens):
            return False
        self._check_stop()
        stats = self._begin("coverage measured again")
        self.measured = dict(self.best)
        again = measure_executed(self.trace, self.best)
        self._end(stats)
        if again.known:
            self.executed = again
            self.needed = needed_statements(self.best, again)
            self.reads = executed_reads_by_file(self.best, again) if self.reads else {}
            self._cut_idle_files(again)  # in one group, then each file's idle statements in one
            self._cut_idle_statements(again)
        return True

    def _merge_modules(self) -> bool:
        """Merge modules into their only importer, one at a time, until no merge reproduces."""
        self._check_stop()
        stats = self._begin("merge modules")
        merged = False
        while True:
            tree = self.best
            pairs = mergeable(tree, self.protected, self.fixed)
            offered: list[tuple[str, str, dict[str, str]]] = []

            def candidates() -> Iterator[str]:  # each merge made when the search draws it, not before
                for path, importer in pairs:
                    if (candidate := merge(tree, path, importer)) is not None:
                        offered.append((path, importer, candidate))
                        yield encode_tree(candidate)

            found = self.trees.first_failing(candidates())
            if found is None:
                break
            path, importer, candidate = offered[found]
            self.accept(candidate)
            self.merges.append((path, importer))
            self.rounds.merged(path, importer)
            if path in self.reads:  # its scopes are the importer's now (a merge renames only what clashes)
                self.reads[importer] = self.reads.get(importer, RunReads(frozenset())) | self.reads.pop(path)
            merged = True
        self._end(stats)
        return merged

    def _reduce_files(self, plan: Plan) -> None:
        """Reduce every file in turn with ``plan``, importers first.

        In the full rounds each file gets one round of ``auto`` and waits for
        the next full round for its next one: the largest files, where the
        tokens are, get every level of passes early instead of after the
        others' fixpoints. A file at its fixpoint is reduced again only when
        its context has changed since: its own text, the files it imports
        (what it can use) or the files importing it (what of it is used). A
        change elsewhere cannot give it anything new to drop."""
        full = plan is self.plan
        graph = ImportGraph.of(self.best)
        for path in graph.order({p: len(t) for p, t in self.best.items()}):
            self._check_stop()
            if path not in self.best or path in self.fixed:
                continue
            if full and not self.rounds.due(self.best, path):
                continue
            modules = modules_of(self.best)
            before = {r.module for r in references(path, self.best[path], modules)}
            self._reduce_file(path, plan)
            if full:
                self.rounds.visited(self.best, path)
            after = {r.module for r in references(path, self.best[path], modules)}
            if before - after:  # the modules it stopped importing may go whole now (the others wait for the next round)
                self._delete_files({modules[m] for m in before - after})
            self._measure_again()

    def _reduce_file(self, path: str, plan: Plan) -> None:
        """The single-file strategy with ``plan`` on ``path``, the rest of the tree fixed."""
        text = self.best[path]
        if not text.strip() or _BINARY.search(text):
            return
        python = is_python(path, text) and plan.parse(text) is not None
        if plan is not self.plan and self.needed.get(path):
            plan = narrowed(plan, self.needed[path])  # a sweep skips what the run reads
        base = self.best
        adapter = FileInTree(self.oracle, base, path)
        elsewhere = tree_digest({**base, path: ""})
        scope = None if self.store is None else self.store.scoped(f"{path}|{elsewhere.hex()}")
        session = Session(
            text, adapter.judge, on_improve=lambda t: self._offer({**base, path: t}),
            on_progress=self._progress_of(path), start=adapter.start, jobs=self.jobs, store=scope,
            budget=self.budget, protected=protected_lines(text, self.keep), stop=self.stop, learnt=self.rounds.learnt(path, elsewhere),
            breaks_run=Unbinding(still_asked(base, path, self.reads[path])) if python and path in self.reads else None,
        )
        rest = self.best_size.tokens - self.sizes.file(text).tokens
        self.current = session
        tracer = self.tracer(path, self.best) if python and self.tracer is not None else None
        configure_tracing(plan.transforms, tracer, enabled=tracer is not None)
        try:
            if python:
                if plan is self.plan:
                    run_strategy(self.strategy, session, self.visit, self.rounds.run_of(self.best, path))
                else:
                    run_strategy("auto", session, plan, sweep := self.rounds.sweep_run(path, plan))
                    self.rounds.inherit(path, sweep.memory.stale)
            else:
                unit_pass(session, "lines", lines_of(text), partial(apply_greedily, memory=Memory(retry_stale=self.exhaustive)))
        finally:
            configure_tracing(plan.transforms, None, enabled=False)
            session.close()
            self.current = None
            for name in self.totals:
                self.totals[name] += getattr(session, name)
            for stats in session.passes:
                self.passes.append(
                    PassStats(f"{path}: {stats.name}", stats.tests, stats.seconds, stats.tokens_before + rest, stats.tokens_after + rest)
                )
        if session.best != text:
            self.accept({**base, path: session.best})

    # --- the end ------------------------------------------------------------------

    def reduce(
        self, *, started: float, format: bool, first: Callable[[], object] | None = None,
        judge: Callable[[FileTree], Verdict] | None = None, target: str = "", notes: Sequence[str] = (), empty_note: str = "",
    ) -> TreeResult:
        """Run ``first`` (a step of the caller's, as a candidate of this reducer), then the passes to their
        fixpoint, then :meth:`finish`. Ctrl-C or a stop request ends it with ``interrupted`` set; a spent
        budget ends it as a finished result. ``target``, ``notes`` (said before the result's own) and
        ``empty_note`` (said of an empty result) go into the result."""
        interrupted = False
        try:
            with self.stop.search() if self.stop is not None else nullcontext():
                if first is not None:
                    first()
                self.run()
        except (KeyboardInterrupt, Interrupted):
            interrupted = True
        finally:
            self.trees.close()
        interrupted = interrupted or (self.stop is not None and self.stop.requested)
        budget_ended = budget_spent(self.budget, interrupted, self.stop)
        return self.finish(
            started=started, format=format, interrupted=interrupted and not budget_ended, judge=judge, budget_ended=budget_ended,
            target=target, notes=notes, empty_note=empty_note,
        )

    def finish(
        self, *, started: float, format: bool, interrupted: bool, judge: Callable[[FileTree], Verdict] | None = None,
        budget_ended: bool = False, target: str = "", notes: Sequence[str] = (), empty_note: str = "",
    ) -> TreeResult:
        """Verify the smallest tree saved (a real run, not the cache; ``judge``, else the oracle's), format it, measure it."""
        def pretty(tree: dict[str, str]) -> dict[str, str]:
            # black would rewrite a kept line, and has no business in a file that is only kept or deleted
            return {
                p: (format_with_black(t) or t) if is_python(p, t) and p not in self.fixed and not protected_lines(t, self.keep) else t
                for p, t in tree.items()
            }

        check = judge if judge is not None else self.oracle.judge
        failed: list[Verdict] = []

        def reproduces(tree: dict[str, str]) -> bool:
            verdict = check(tree)
            if verdict.outcome is Outcome.FAIL:
                failed[:] = [verdict]
            return verdict.outcome is Outcome.FAIL

        def origins(tree: dict[str, str]) -> dict[str, str]:
            traced = self.lineage.trace(tree)
            return {p: annotated(t, traced[p].origins) if is_python(p, t) and p not in self.fixed else t for p, t in tree.items()}

        best, verified, formatted, said = verify_and_format(
            self.saved, reproduces, pretty if format and not interrupted else None,
            origins if self.annotate and not interrupted else None,
        )
        notes = [*notes, *said]
        original_place = self.place if self.place is not None else place_of(
            self.oracle.traits.raised_at, Lineage(self.original), self.original
        )
        provenance = Provenance.of(
            self.lineage, best, original_place, failed[0].run.raised_at if failed else None, same_place=self.place is not None
        )
        output_size = self.sizes.tree(best)
        if output_size.tokens == 0 and self.original_size.tokens > 0 and empty_note:
            notes.append(empty_note)
        return TreeResult(
            tree=best,
            original=self.original,
            strategy=self.strategy,
            tests=self.tests,
            cache_hits=self.cache_hits,
            seconds=time.monotonic() - started,
            oracle_seconds=float(self._count("oracle_seconds")),
            verified=verified,
            passes=self.passes,
            history=self.history,
            merges=self.merges,
            input_size=self.original_size,
            output_size=output_size,
            formatted=formatted,
            interrupted=interrupted,
            notes=notes,
            **{name: int(self._count(name)) for name in COUNTED},
            resumed=self.store.hits if self.store is not None else 0,
            budget_ended=budget_ended,
            target=target,
            provenance=provenance,
        )


def reduce_tree(
    files: Mapping[str, str],
    options: OracleOptions | None = None,
    *,
    entry: str | None = None,
    modes: Mapping[str, int] | None = None,
    strategy: str = "auto",
    transforms: list[str] | None = None,
    jobs: int = 1,
    format: bool = False,
    on_improve: Callable[[dict[str, str]], None] | None = None,
    on_progress: Callable[[ProgressEvent], None] | None = None,
    stop: StopRequest | None = None,
) -> TreeResult:
    """Reduce a tree (relative path with ``/`` → text) to a smallest tree the oracle still judges FAIL.

    ``options`` describe the oracle as for :func:`~astreduce.reduce.single.reduce_source`;
    the exec oracle needs ``entry``, the file that runs as ``__main__`` (never
    deleted). ``strategy`` and ``transforms`` apply to each file's reduction.
    ``on_improve`` gets every smaller reproducing tree as soon as it is found.

    Raises:
        UsageError: bad options, an unknown strategy or transform, no files.
        NotReproducibleError: the original tree does not FAIL, or not reliably.
        ReductionStopped: interrupted; ``.result`` holds the best tree so far, verified.
    """
    config = ReduceConfig(
        options=options if options is not None else OracleOptions(), strategy=strategy,
        transforms=tuple(transforms) if transforms is not None else None, jobs=jobs, format=format,
    )
    return reduce_tree_with(
        files, config, entry=entry, modes=modes, on_improve=on_improve, on_progress=on_progress, stop=stop
    )


def reduce_tree_with(
    files: Mapping[str, str],
    config: ReduceConfig,
    *,
    entry: str | None = None,
    modes: Mapping[str, int] | None = None,
    on_improve: Callable[[dict[str, str]], None] | None = None,
    on_progress: Callable[[ProgressEvent], None] | None = None,
    stop: StopRequest | None = None,
    on_note: Callable[[str], None] | None = None,
) -> TreeResult:
    """:func:`reduce_tree` with its settings gathered in ``config`` (its file-only fields unused); ``on_note`` hears,
    once the original has run, what the reduction is for."""
    started = time.monotonic()
    options, strategy, jobs, format = config.options, config.strategy, config.jobs, config.format
    if not files:
        raise UsageError("no files to reduce")
    options.check_tree(entry, REDUCING)
    if entry is not None and entry not in files:
        raise UsageError(f"--entry {entry}: no such file in the input")
    planning = Planning.of(config)
    configure_tracing(planning.transforms, None, enabled=False)  # each file's pass configures its own (TreeReducer.tracer)
    store = None
    judged: Oracle[FileTree] | None = None
    try:
        oracle = TreeOracle(options, entry=entry, wording=REDUCING, modes=dict(modes or {}))
        try:
            oracle.calibrate(files)
        except NotReproducibleError as error:
            raise blame_confinement(options, error) from None
        judged = oracle if config.cluster is None else config.cluster.adopt(oracle)
        lineage = Lineage(files)
        guarded = guard_tree(judged, config, lineage, planning)
        judged = guarded.oracle
        if on_note is not None:
            on_note(f"target: {judged.traits.target or 'as the oracle judges'}; {guarded.note}")
        plan = planning.plan(config, unparsable=judged.traits.unparsable)
        store = resume_store(config, judged)
        budget = config.budget()
        trace = traced(oracle)
        executed, said = original_coverage(config.coverage_first, trace, dict(files))
        reducer = TreeReducer(
            files, judged, plan, strategy=strategy, jobs=jobs,
            protected=frozenset({entry}) if entry is not None else frozenset(),
            tracer=entry_tracer(oracle, foreign_parser=plan.foreign_parser), store=store, exhaustive=config.exhaustive,
            budget=budget, keep=config.keep, on_improve=on_improve, on_progress=on_progress, stop=stop,
            lineage=lineage, place=guarded.place, annotate=config.annotate, executed=executed, trace=trace,
        )
        if on_improve is not None:
            on_improve(dict(files))  # from now on the output exists and reproduces, whatever happens
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))  # as reduce_source: deep input
        result = reducer.reduce(
            started=started, format=format, target=oracle.traits.target, notes=[*oracle.notes, *said], empty_note=options.empty_result_note(),
        )
    finally:
        if judged is not None:
            judged.close()  # a cluster's copies of the oracle
        planning.close()
        if store is not None:
            store.close()
    return stopped_if_interrupted(result)


def guard_tree(oracle: Oracle[FileTree], config: ReduceConfig, lineage: Lineage, planning: Planning) -> Guarded[FileTree]:
    """A tree's oracle with the guards every job puts around its oracle (:func:`~astreduce.reduce.guards.guard`):
    the same place, and Python files that parse."""
    return guard(
        oracle, options=config.options, lineage=lineage, tree_of=lambda tree: tree, parses=planning.parses,
        python_files=lambda path: is_python(path, lineage.original.get(path, "")),
    )


def resume_store(config: ReduceConfig, oracle: Oracle[FileTree]) -> OutcomeStore | None:
    """The persistent outcome cache of ``--resume`` for a tree judged by ``oracle``; ``None`` without it."""
    if not config.resume:
        return None
    return OutcomeStore(config.cache_dir or default_cache_dir(), f"{oracle.identity}|tree")


def reduce_directory(
    paths: Path | str | Sequence[Path | str],
    output: Path | str | None = None,
    *,
    entry: str | None = None,
    **options: Any,
) -> TreeResult:
    """Reduce a directory (or several files) on disk; write the result to the directory ``output``.

    ``output`` defaults to ``DIR.reduced`` next to the directory (``NAME.reduced``
    next to the first file). It must not exist, or be empty; it is replaced
    with each smaller reproducing tree. ``options`` are :func:`reduce_tree`'s.
    """
    listed = [Path(paths)] if isinstance(paths, (str, Path)) else [Path(p) for p in paths]
    given = read_input(listed)
    target = Path(output) if output is not None else default_output_dir(listed)
    check_output_dir(target, given)
    entry = resolve_entry(entry, given)

    with TreeWriter(target, given.modes) as save:
        try:
            result = reduce_tree(given.files, entry=entry, modes=given.modes, on_improve=save, **options)
        except ReductionStopped as stopped:
            save(stopped.result.tree)
            raise
        save(result.tree)
    return result
