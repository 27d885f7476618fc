"""The search of ``astreduce isolate``: HDD on OLD, from NEW's whole change down to single lines, then re-expressed.

The levels, coarse to fine, as the change-isolation paper grouped GDB's
changes and HDD goes down a tree. At each, the patch on OLD so far is split
finer and minimised by ddmin, applied to OLD alone:

1. **directories**, then **files** (two trees): whole files, grouped by their
   folder first;
2. **the granularity** within the files kept (functions by default: the
   statement changes grouped by the function or class holding them);
3. **statements on OLD** (``refine``): the patch re-diffed against OLD by
   statements; the statements it adds are opened level by level (a class,
   its methods, their statements);
4. **lines on OLD**: every line the patch removes or adds;
5. **re-expressed on OLD** (also before 3, when the patch is large) (``reexpress``): OLD's own lines edited in place
   toward the patch's NEW lines, down to single tokens
   (:mod:`astreduce.isolate.reexpress`); a smaller one that fails replaces
   the patch, which is then minimised by statements and lines again, so that
   the end is always a patch 1-minimal by lines that applies to OLD.

ddmin asks only whether a candidate fails as NEW does: a test script, which
cannot tell a broken candidate from a passing one, and a pytest node, which
can, lead the search the same way. At each level, the changes to code that
neither OLD's nor NEW's run executes (:mod:`astreduce.isolate.coverage`) are
set aside in one group: one test without them comes first. The granularity's
level also keeps the largest version it tested that passes within its
failing one: the passing and failing versions the command writes, and their
difference. Every candidate is judged through the session every command
shares (:mod:`astreduce.isolate.candidates`): its cache, its ``-j``
speculation, its stop requests and its budget (``--max-tests``,
``--max-time``), so a stop ends the search between two tests with the
smallest patch so far, which is verified.
"""

from __future__ import annotations

import time
from contextlib import nullcontext
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from astreduce.dd import DDResult, Mode, Outcome, dd
from astreduce.dd.binary import binary_reduction
from astreduce.errors import DDPreconditionError, NotReproducibleError, ReductionStopped, UsageError
from astreduce.files import FileTree
from astreduce.isolate.align import file_changes
from astreduce.isolate.candidates import Bounds, Build, CandidateTrees
from astreduce.isolate.changes import (
    GRANULARITIES,
    Change,
    Edit,
    Granularity,
    apply_changes,
    changed_lines,
    flatten,
    grouped,
    one_line_changes,
    tree_changes,
)
from astreduce.isolate.coverage import ChangeCoverage, Coverage, split_executed
from astreduce.isolate.depends import Needs, names_in
from astreduce.isolate.reexpress import proposals
from astreduce.isolate.result import IsolationResult, LevelStats
from astreduce.isolate.trim import sweep
from astreduce.oracles import Oracle, plugged
from astreduce.oracles.tree import FileOracle
from astreduce.outcome import first_fail
from astreduce.reduce.single import budget_spent
from astreduce.search.cache import OutcomeStore
from astreduce.search.session import StopRequest
from astreduce.search.session import Budget, Interrupted


@dataclass(frozen=True)
class IsolateProgress:
    """What a progress display shows after each test: the level, the tests so far, the size of the smallest failing patch."""

    level: str
    tests: int
    cache_hits: int
    patch_lines: int
    """Changed lines of the smallest patch on OLD known to fail so far (NEW's whole change before one is known)."""


def isolate(
    old_text: str,
    new_text: str,
    oracle: Oracle[str],
    granularity: Granularity = "functions",
    *,
    jobs: int = 1,
    filename: str = "candidate.py",
    stop: StopRequest | None = None,
    refine: bool = True,
    reexpress: bool = True,
    budget: Budget | None = None,
    on_progress: Callable[[IsolateProgress], None] | None = None,
    store: OutcomeStore | None = None,
) -> IsolationResult:
    """Isolate the changes from ``old_text`` (passes) to ``new_text`` (fails) that make it fail.

    Args:
        oracle: judges a candidate text; for the exec oracle build it on NEW
            (``build_oracle(options, Original(new_text, filename))``), whose
            exception is the target.
        granularity: ``lines``, ``statements`` or ``functions``.
        jobs: candidates tested at once; the result is the same for every value.
        filename: the file's name (decides whether it is Python, names it in diffs).
        stop: lets a signal handler stop the search between two tests.
        refine: split the isolated changes into statements, then lines, until
            the patch on OLD is 1-minimal by lines; else stop at ``granularity``.
        reexpress: with ``refine``, try OLD's own lines edited in place toward the patch's NEW lines.
        budget: tests and seconds the search may spend; then the best patch so far is verified and returned.
        on_progress: called after each test.
        store: a persistent outcome cache (``--resume``): tests it knows are answered from it.

    Raises:
        NotReproducibleError: OLD does not pass or NEW does not fail.
        UsageError: an unknown granularity, or OLD equals NEW.
        ReductionStopped: stopped (``stop``); ``.result`` holds the passing and failing versions so far.
    """
    name = filename or "candidate.py"
    return isolate_trees(
        {name: old_text}, {name: new_text}, FileOracle(plugged(oracle), name), granularity, jobs=jobs, single=name, stop=stop,
        refine=refine, reexpress=reexpress, budget=budget, on_progress=on_progress, store=store,
    )


def isolate_trees(
    old: Mapping[str, str],
    new: Mapping[str, str],
    oracle: Oracle[FileTree],
    granularity: Granularity = "functions",
    *,
    jobs: int = 1,
    single: str | None = None,
    stop: StopRequest | None = None,
    refine: bool = True,
    reexpress: bool = True,
    coverage: Coverage | None = None,
    budget: Budget | None = None,
    on_progress: Callable[[IsolateProgress], None] | None = None,
    checked: bool = False,
    store: OutcomeStore | None = None,
) -> IsolationResult:
    """:func:`isolate` for two versions of a package (``read_tree``): by folders and files, then within them.

    ``coverage`` (OLD's and NEW's runs, :func:`~astreduce.isolate.coverage.measure_coverage`)
    sets aside the changes no run executes; ``checked``: OLD and NEW were
    judged already (by a caller that calibrated the oracle on them); ``store``: as for :func:`isolate`.

    Raises:
        NotReproducibleError: OLD does not pass or NEW does not fail.
        UsageError: an unknown granularity, or OLD equals NEW.
        ReductionStopped: stopped (``stop``); ``.result`` holds the passing and failing versions so far.
    """
    started = time.monotonic()
    if granularity not in GRANULARITIES:
        raise UsageError(f"unknown granularity {granularity!r}; choose from {', '.join(GRANULARITIES)}")
    if jobs < 1:
        raise UsageError("-j must be at least 1")
    old, new = dict(old), dict(new)
    if old == new:
        raise UsageError("OLD and NEW are identical: there are no changes to isolate")
    oracle = plugged(oracle)  # an oracle handed to the API may lack start, close and traits
    if not checked:
        verdict = oracle.judge(new)
        if verdict.outcome is not Outcome.FAIL:
            raise NotReproducibleError(f"NEW does not fail: the oracle says {verdict.outcome} ({verdict.run.describe()})")
        verdict = oracle.judge(old)
        if verdict.outcome is not Outcome.PASS:
            raise NotReproducibleError(f"OLD does not pass: the oracle says {verdict.outcome} ({verdict.run.describe()})")
    trees = CandidateTrees(oracle, old, new, jobs, single, budget=budget, stop=stop, store=store)
    search = _Search(old, new, trees, coverage or Coverage(why="not measured"), on_progress)
    interrupted = False
    try:
        with stop.search() if stop is not None else nullcontext():
            search.run(granularity, single, refine, reexpress)
    except (KeyboardInterrupt, Interrupted):
        interrupted = True
    finally:
        trees.session.close()  # candidates started ahead must not outlive the search
        interrupted = interrupted or (stop is not None and stop.requested)
    result = search.result(granularity, single)
    result.target = oracle.traits.target
    result.budget_ended = budget_spent(budget, interrupted, stop)
    result.interrupted = interrupted and not result.budget_ended
    result.verified = (
        oracle.judge(result.passing).outcome is Outcome.PASS
        and oracle.judge(result.failing).outcome is Outcome.FAIL
        and (result.isolated == result.failing or oracle.judge(result.isolated).outcome is Outcome.FAIL)
    )
    result.seconds = time.monotonic() - started
    if result.interrupted:
        raise ReductionStopped("interrupted", result)
    return result


#: How the changes within one file are made: (OLD text, other text, path) -> changes.
Split = Callable[[str, str, str], list[Change]]

#: A minimisation on OLD with more changes than this is swept (:func:`~astreduce.isolate.trim.sweep`), else it goes to
#: ddmin, whose small subsets find smaller results (``configparser_readfp``: 1 line against 6) but whose complements
#: cost several times more tests when many changes are needed.
SWEEP_ABOVE = 24

#: Rounds of a minimisation on OLD when the result's own changes, split again, differ from it.
NARROW_ROUNDS = 3

#: Statements a patch adds are opened this many levels deep (a class, its methods, their statements, a block in them).
OPEN_DEPTH = 4

#: Changes tried alone (each with what it needs) at most, at a level, before binary reduction.
MAX_SINGLES = 150

#: Proposals of OLD lines edited in place tried at most, per re-expression.
MAX_PROPOSALS = 120

#: Rounds of minimising and re-expressing on OLD while the patch shrinks.
REEXPRESS_ROUNDS = 2

#: A patch of the granularity with more changed lines than this is re-expressed before it is split, with at most
#: :data:`EARLY_PROPOSALS` proposals: when NEW moved the code (a module turned into a package), splitting NEW's text
#: costs hundreds of tests where one of OLD's lines edited in place is the answer.
EARLY_ABOVE = 40

#: Proposals tried at most by the re-expression before splitting.
EARLY_PROPOSALS = 30


class _Search:
    """One isolation's levels, and where they stand: what :meth:`result` reports, finished or not."""

    def __init__(
        self, old: FileTree, new: FileTree, trees: CandidateTrees, coverage: Coverage,
        on_progress: Callable[[IsolateProgress], None] | None,
    ) -> None:
        self.old = old
        self.new = new
        self.trees = trees
        self.coverage = coverage
        self.covered = ChangeCoverage(coverage, old) if coverage.measured else None
        self.old_names = names_in(old)
        """Every name OLD's text holds: a change's use of any other name needs the change that defines it."""
        self.on_progress = on_progress
        self.levels: list[LevelStats] = []
        self.elements: list[Change] = []
        """The changes of the granularity's level (every one of them, before the minimisation)."""
        self.bounds: Bounds | None = None
        """The level under way: its failing side is the smallest patch on OLD known at that level."""
        self.versions: Bounds | None = None
        """The granularity's level: the largest tested version that passes within its failing one, and that one:
        the passing and failing versions reported, and their difference."""
        self.current: tuple[str, int, int, int, int, float] | None = None
        """The level under way: its name, changes, pruned changes, and the counters and clock when it began."""
        self.isolated: list[Change] = flatten(tree_changes(old, new))
        """The changes of the patch on OLD: NEW's whole change at first, then each level's result."""
        self.narrowing: Bounds | None = None
        """A minimisation on OLD under way: its failing side is the smallest patch on OLD known at that level."""
        self.refined = False
        """The last minimisation by single lines ran to its end and agreed with its own result."""
        self.reexpressed = ""
        self._sizes: dict[tuple[int, ...], int] = {}
        trees.on_outcome = self._progress

    # --- progress -----------------------------------------------------------------

    def _patch_now(self) -> list[Change]:
        """The smallest patch on OLD known to fail now (NEW's whole change before a smaller one is known)."""
        for bounds in (self.narrowing, self.bounds):
            if bounds is not None:
                return bounds.failing
        return self.isolated

    def _progress(self) -> None:
        if self.on_progress is None:
            return
        patch = self._patch_now()
        key = tuple(id(c) for c in patch)
        size = self._sizes.get(key)
        if size is None:
            size = patch_size(self.old, patch) if patch else changed_lines(self.old, self.new)
            self._sizes = {key: size}
        name = self.current[0] if self.current is not None else "verifying"
        self.on_progress(IsolateProgress(name, self.trees.tests, self.trees.cache_hits, size))

    # --- the levels ---------------------------------------------------------------

    def run(self, granularity: Granularity, single: str | None, refine: bool, reexpress: bool) -> None:
        old, new = self.old, self.new
        python_only = single is None
        if single is None:
            files = tree_changes(old, new)
            folders = _by_folder(files)
            if len(folders) > 1:
                files = flatten(self._level("directories", folders, "directories"))
            kept = self._level("files", files, "files")
            elements = _within(old, new, kept, lambda a, b, path: file_changes(a, b, granularity, path, python_only=True))
        else:
            elements = file_changes(old[single], new[single], granularity, single)
        self.elements = elements
        self._level(granularity, elements, "changes", versions=True)
        if not refine:
            return
        if reexpress and patch_size(old, self.isolated) > EARLY_ABOVE:
            self._reexpress("re-expressed on OLD (before splitting)", EARLY_PROPOSALS)
        for round_ in range(REEXPRESS_ROUNDS):
            self._narrow_statements(python_only)
            with self.trees.parsing_only():  # most subsets of lines are broken: a parse, not a test
                self.refined = self._narrow("lines on OLD", one_line_changes)
            if not reexpress or round_ == REEXPRESS_ROUNDS - 1 or not self._reexpress():
                break

    def _level(self, name: str, elements: list[Change], what: str, *, versions: bool = False) -> list[Change]:
        """Binary reduction over ``elements`` (the patch so far, split finer) applied to OLD alone: the patch at this level.

        Every configuration is closed under the needs between the changes
        (:mod:`astreduce.isolate.depends`); changes no run executes are one
        group, last. Binary reduction (:mod:`astreduce.dd.binary`) goes up from
        OLD: it asks only whether a candidate fails, and when many changes
        depend on each other it needs a few tests per needed change where ddmin
        from NEW needs about the square of their number.
        """
        old, trees = self.old, self.trees
        prepared = split_executed(elements, self.covered, what)
        pruned = len(prepared[-1].parts) if len(prepared) < len(elements) else 0
        self._begin(name, len(flatten(elements)), pruned)
        needs = Needs(old, prepared, self.old_names, self.coverage.new_ran if self.coverage.measured else None)
        self.bounds = bounds = Bounds([], list(prepared), grows=versions)
        if versions:
            self.versions = bounds

        def build(config: Sequence[Change]) -> FileTree:
            return apply_changes(old, config)

        def fails(config: list[Change], if_fails: list[Change] | None, if_not: list[Change] | None) -> bool:
            closed = needs.closure(config)
            after_fail = needs.closure(if_fails) if if_fails is not None else None
            after_not = needs.closure(if_not) if if_not is not None else None
            return trees.probe(closed, build, bounds, after_fail, after_not) is Outcome.FAIL

        found = self._single(prepared[:-1] if pruned else prepared, needs, build, bounds) if len(prepared) > 1 else prepared
        if found is None:
            found = needs.closure(binary_reduction(prepared, fails))
        idle = {id(m) for m in prepared[-1].members} if pruned else set()
        needed = any(id(change) in idle for change in found)
        bounds.settle(found)
        self.isolated, self.bounds = flatten(found), None
        self._end(len(flatten(found)), needed)
        return self.isolated

    def _single(self, elements: list[Change], needs: Needs, build: Build, bounds: Bounds) -> list[Change] | None:
        """The first change (with what it needs) that alone makes OLD fail, or None.

        The smallest configurations are the likeliest to be consistent: when
        NEW rewrote a module, OLD with one of its functions in NEW's version
        runs, where OLD with half of them does not. The changes that both
        runs execute are tried first (at most :data:`MAX_SINGLES`), each alone
        with its closure; the session runs them ``-j`` at a time.
        """
        covered = self.covered
        ranked = sorted(
            range(len(elements)),
            key=lambda i: (0 if covered is None or covered.executed_by_both(elements[i]) else 1, i),
        )
        trials: list[list[Change]] = []
        seen: set[tuple[int, ...]] = set()
        for index in ranked[:MAX_SINGLES]:
            closed = needs.closure([elements[index]])
            key = tuple(id(c) for c in closed)
            if key not in seen:
                seen.add(key)
                trials.append(closed)
        found = first_fail(self.trees.outcomes(trials, build, bounds))
        return trials[found] if found is not None else None

    def _narrow_statements(self, python_only: bool) -> None:
        """Statements on OLD, the statements the patch adds opened one level more each time, while some remain closed."""
        for depth in range(OPEN_DEPTH + 1):
            name = "statements on OLD" if depth == 0 else f"statements on OLD (depth {depth})"
            self._narrow(name, _statements(python_only, depth))
            assert self.isolated is not None
            target = apply_changes(self.old, self.isolated)
            deeper = _within(self.old, target, tree_changes(self.old, target), _statements(python_only, depth + 1))
            if len(deeper) <= len(self.isolated):
                break

    def _narrow(self, name: str, split: Split) -> bool:
        """ddmin (or a sweep) over the patch on OLD split by ``split``, applied to OLD alone.

        The elements are the changes from OLD to the patch's version, made by
        ``split``; the result's own changes, split again, may differ from it
        (difflib aligns a smaller change differently), so the minimisation runs
        again on those until they agree: then the patch that is written is
        1-minimal in the changes it shows, and this says so (``False`` when
        they never agreed).
        """
        old = self.old
        assert self.isolated is not None
        found = self.isolated
        target = apply_changes(old, found)
        elements = _within(old, target, tree_changes(old, target), split)
        self._begin(name, len(elements))
        agreed = False
        for _ in range(NARROW_ROUNDS):
            found = self._narrow_once(elements)
            target = apply_changes(old, found)
            elements = _within(old, target, tree_changes(old, target), split)
            agreed = _edits(elements) == _edits(found)
            if agreed:
                break
        self._end(len(found))
        return agreed

    def _narrow_once(self, elements: list[Change]) -> list[Change]:
        """One minimisation on OLD: ddmin for few changes, a sweep for many."""
        old = self.old
        self.narrowing = bounds = Bounds([], list(elements), grows=False)

        def build(config: Sequence[Change]) -> FileTree:
            return apply_changes(old, config)

        if len(elements) <= SWEEP_ABOVE:
            found = self._minimise(elements, build, bounds, "the patch on OLD")
        else:
            found = sweep(elements, lambda trials: self.trees.outcomes(trials, build, bounds))
        self.isolated, self.narrowing = found, None
        return found

    def _reexpress(self, name: str = "re-expressed on OLD", most: int = MAX_PROPOSALS) -> bool:
        """Try OLD's own lines edited in place toward the patch's NEW lines, smallest first; True when one replaced the patch."""
        assert self.isolated is not None
        old, trees = self.old, self.trees
        current = apply_changes(old, self.isolated)
        size = changed_lines(old, current)
        if size <= 1:
            return False
        found = [p for p in proposals(old, self.new, current, self.coverage) if p.lines < size][:most]
        self._begin(name, len(found))
        self.narrowing = bounds = Bounds([], list(self.isolated), grows=False)

        def build(config: Sequence[Change]) -> FileTree:
            return apply_changes(old, config)

        with trees.parsing_only():
            index = first_fail(trees.outcomes([list(p.changes) for p in found], build, bounds))
        self.narrowing = None
        if index is None:
            self._end(0)
            return False
        chosen = found[index]
        self.isolated = list(chosen.changes)
        self.reexpressed = chosen.label
        self._end(len(chosen.changes))
        return True

    def _minimise(self, pool: list[Change], build: Build, bounds: Bounds, what: str) -> list[Change]:
        """ddmin over ``pool`` (all of it fails): a 1-minimal failing subset, each outcome also to ``bounds``."""
        return list(self._dd(pool, "-", build, bounds, what).failing)

    def _dd(self, elements: list[Change], mode: Mode, build: Build, bounds: Bounds, what: str) -> DDResult[Change]:
        """dd over ``elements``, each configuration built by ``build`` and judged through the session."""
        trees = self.trees

        def test(config: Sequence[Change]) -> Outcome:
            return trees.outcome(config, build, bounds)

        def batch(configs: list[Sequence[Change]]) -> Iterator[Outcome]:
            return trees.outcomes(configs, build, bounds)

        try:
            result = dd(elements, test, mode, batch=batch if trees.jobs > 1 else None)
        except DDPreconditionError as error:  # the ends were checked: the oracle is not deterministic
            raise NotReproducibleError(f"the oracle changed its mind about {what} ({error}); is it flaky?") from None
        trees.hits += result.cache_hits  # configurations dd answered from its own cache
        return result

    # --- bookkeeping --------------------------------------------------------------

    def _begin(self, name: str, changes: int, pruned: int = 0) -> None:
        self.current = (name, changes, pruned, self.trees.tests, self.trees.cache_hits, time.monotonic())

    def _end(self, found: int, pruned_needed: bool = False) -> None:
        """The figures of the level that ends (or, stopped, of the level so far)."""
        assert self.current is not None
        name, changes, pruned, tests, hits, started = self.current
        trees = self.trees
        self.levels.append(
            LevelStats(name, changes, trees.tests - tests, trees.cache_hits - hits, found, time.monotonic() - started, pruned, pruned_needed)
        )
        self.current = None

    def result(self, granularity: Granularity, single: str | None) -> IsolationResult:
        """Where the search stands: its result when it ran to the end, the best so far when it was stopped."""
        old, trees = self.old, self.trees
        isolated_changes = list(self._patch_now())
        versions = self.versions
        passing = list(versions.passing) if versions is not None else []
        failing = list(versions.failing) if versions is not None else isolated_changes
        passing_ids = {id(c) for c in passing}
        difference = [c for c in failing if id(c) not in passing_ids]
        if self.current is not None:  # stopped within a level
            self._end(len(isolated_changes))
        return IsolationResult(
            granularity=granularity,
            old=old,
            new=self.new,
            changes=self.elements,
            passing_changes=passing,
            difference=difference,
            requires=list(passing),  # OLD + passing fails with the difference: what the difference needs
            passing=apply_changes(old, passing),
            failing=apply_changes(old, failing),
            isolated=apply_changes(old, isolated_changes),
            isolated_changes=isolated_changes,
            coarse=apply_changes(old, failing),
            tests=trees.tests,
            cache_hits=trees.cache_hits,
            resumed=trees.session.resumed,
            unresolved=trees.unresolved,
            seconds=0.0,
            oracle_seconds=trees.session.oracle_seconds,
            levels=self.levels,
            single=single,
            refined=self.refined,
            syntax_rejections=trees.syntax_rejections,
            coverage=self.coverage,
            reexpressed=self.reexpressed,
        )


def patch_size(old: FileTree, changes: Sequence[Change]) -> int:
    """Changed lines of OLD with ``changes``, counted over the files they touch only."""
    touched = {c.path for c in flatten(changes)}
    after = apply_changes({p: t for p, t in old.items() if p in touched}, changes)
    return changed_lines({p: t for p, t in old.items() if p in touched}, after)


def _statements(python_only: bool, depth: int) -> Split:
    """The split by statements, those a patch adds opened ``depth`` levels."""
    return lambda old, new, path: file_changes(old, new, "statements", path, python_only=python_only, depth=depth)


def _by_folder(files: list[Change]) -> list[Change]:
    """File changes grouped by the folder that holds them (one group per folder)."""
    folders: dict[str, list[Change]] = {}
    for change in files:
        folders.setdefault(change.path.rpartition("/")[0], []).append(change)
    return [
        members[0] if len(members) == 1 else grouped(folder or ".", f"{len(members)} files", members)
        for folder, members in folders.items()
    ]


def _within(old: FileTree, new: FileTree, files: Iterable[Change], split: Split) -> list[Change]:
    """The changes within each of ``files`` (changes of whole files) made by ``split``.

    A file added is its presence (an empty file) and its text split as if it
    were added to an empty one; a file removed or binary stays whole.
    """
    elements: list[Change] = []
    for change in flatten(files):
        before, after = old.get(change.path, ""), new.get(change.path, "")
        if "\0" in before + after:
            elements.append(change)
        elif change.presence is None:
            elements += split(before, after, change.path)
        elif change.presence and after:
            elements.append(Change(change.path, (Edit(0, 0, "", 0),), "file added (empty)", presence=True))
            elements += split("", after, change.path)
        else:
            elements.append(change)
    return elements


def _edits(changes: Iterable[Change]) -> list[tuple[str, int, int, str]]:
    """What ``changes`` do, whatever their grouping and labels: every edit, in order."""
    return sorted((change.path, edit.start, edit.end, edit.text) for change in flatten(changes) for edit in change.edits)
