"""The search of ``astreduce isolate``: dd ``+-`` over the changes, level by level.

Files first for two trees (a file added, removed or changed is one change),
then the changes within the files of that difference at the chosen
granularity (:func:`isolate_trees`); for two files, that second level alone
(:func:`isolate`). What dd ``+-`` finds is relative to the maximal passing
version; the passing changes the difference needs to fail on OLD alone are
then found by ddmin, guessing first by the names they define
(:meth:`_Search._requirements`). Then, HDD's finer levels: that patch on
OLD is split into statements and single lines and minimised on OLD alone at
each (:meth:`_Search._narrow`; ddmin for few changes, a sweep of
:mod:`astreduce.isolate.trim` for many), until it is 1-minimal by lines.
Every candidate is judged through the
session every command shares (:mod:`astreduce.isolate.candidates`), so a
stop request ends the search between two tests with the versions so far.
:func:`isolate_paths` reads the versions from disk and builds the oracle;
:func:`isolation_report` is the ``--report`` JSON.
"""

from __future__ import annotations

import re
import time
from contextlib import nullcontext
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from astreduce.dd import DDResult, Mode, Outcome, dd
from astreduce.errors import DDPreconditionError, NotReproducibleError, ReductionStopped, UsageError
from astreduce.files import FileTree, read_source, read_tree
from astreduce.file_checks import InputPolicy
from astreduce.isolate.align import file_changes
from astreduce.isolate.candidates import Bounds, Build, CandidateTrees
from astreduce.isolate.changes import (
    GRANULARITIES,
    Change,
    Granularity,
    apply_changes,
    changed_lines,
    one_line_changes,
    tree_changes,
    unified_diff,
)
from astreduce.isolate.trim import sweep, trim
from astreduce.source.measure import measure
from astreduce.oracles import Oracle, plugged
from astreduce.oracles.options import OracleOptions, Original, build_oracle
from astreduce.oracles.tree import DirectoryOracle, FileOracle
from astreduce.search.session import StopRequest
from astreduce.search.session import Interrupted


@dataclass
class LevelStats:
    """Figures of one dd run: over files, or over the changes within them."""

    name: str
    """``files``, the granularity, or ``requires``."""
    changes: int
    tests: int
    cache_hits: int
    difference: int
    """Changes found: the difference (``requires``: the changes it needs)."""
    seconds: float


@dataclass
class IsolationResult:
    """What :func:`isolate` and :func:`isolate_trees` found.

    Trees map relative paths to texts; for a single file the tree has one
    entry and ``*_text`` give its text.
    """

    granularity: str
    old: FileTree
    new: FileTree
    changes: list[Change]
    """Every change of the last level (within files; for trees, after the file level)."""
    passing_changes: list[Change]
    """Changes applied to OLD in the maximal passing version (all levels)."""
    difference: list[Change]
    """The 1-minimal failure-inducing difference: failing = passing + difference."""
    requires: list[Change]
    """Passing changes the difference needs to fail when applied to OLD alone (often none)."""
    passing: FileTree
    failing: FileTree
    isolated: FileTree
    """OLD with the difference and the changes it requires: fails on its own."""
    tests: int
    cache_hits: int
    unresolved: int
    seconds: float
    oracle_seconds: float
    levels: list[LevelStats]
    single: str | None = None
    """The file's name when OLD and NEW are files."""
    verified: bool = False
    """The passing version was re-run and passes, the failing and isolated ones fail."""
    interrupted: bool = False
    """Stopped before the end: the passing and failing versions so far, both tested; ``requires``
    holds every passing change when the stop came before the search for them."""
    isolated_changes: list[Change] = field(default_factory=list)
    """The changes of the patch on OLD (:attr:`isolated_diff`): split down to single lines when
    the search refines, else the difference and what it requires."""
    coarse: FileTree = field(default_factory=dict)
    """OLD with the difference and what it requires, before they were split: the patch without refinement."""
    refined: bool = False
    """The patch on OLD was split down to single lines and is 1-minimal by them (not when stopped before)."""
    syntax_rejections: int = 0
    """Candidates UNRESOLVED without a test because a Python file did not parse."""

    patch_name: str | None = None
    """For two files: the name the diffs give the file, OLD's, so that ``patch -p1`` in OLD's folder applies them."""

    def _named(self, tree: FileTree) -> FileTree:
        if self.single is None or self.patch_name is None:
            return tree
        return {self.patch_name if path == self.single else path: text for path, text in tree.items()}

    @property
    def diff(self) -> str:
        """The 1-minimal difference as a unified diff: passing → failing."""
        return unified_diff(self._named(self.passing), self._named(self.failing))

    @property
    def isolated_diff(self) -> str:
        """OLD → OLD with the isolated changes: a patch that alone makes OLD fail."""
        return unified_diff(self._named(self.old), self._named(self.isolated))

    @property
    def diff_lines(self) -> int:
        """Lines removed plus lines added by :attr:`diff`."""
        return changed_lines(self.passing, self.failing)

    @property
    def isolated_lines(self) -> int:
        """Lines removed plus lines added by :attr:`isolated_diff`, the patch on OLD."""
        return changed_lines(self.old, self.isolated)

    def _text(self, tree: FileTree) -> str:
        if self.single is None:
            raise ValueError("OLD and NEW are directories: use the trees")
        return tree.get(self.single, "")

    @property
    def passing_text(self) -> str:
        return self._text(self.passing)

    @property
    def failing_text(self) -> str:
        return self._text(self.failing)

    @property
    def isolated_text(self) -> str:
        return self._text(self.isolated)


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

    Raises:
        NotReproducibleError: OLD does not pass or NEW does not fail.
        UsageError: an unknown granularity, or OLD equals NEW.
        ReductionStopped: stopped (``stop``); ``.result`` holds the passing and failing versions so far.
    """
    name = filename or "candidate.py"
    return isolate_trees(
        {name: old_text}, {name: new_text}, FileOracle(plugged(oracle), name), granularity, jobs=jobs, single=name, stop=stop, refine=refine
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
) -> IsolationResult:
    """:func:`isolate` for two versions of a package (``read_tree``): by files, then within them.

    With ``refine``, the files of the patch on OLD are then split into
    statements and lines (files added or removed stay whole).

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
    checked = oracle.judge(new)
    if checked.outcome is not Outcome.FAIL:
        raise NotReproducibleError(f"NEW does not fail: the oracle says {checked.outcome} ({checked.run.describe()})")
    checked = oracle.judge(old)
    if checked.outcome is not Outcome.PASS:
        raise NotReproducibleError(f"OLD does not pass: the oracle says {checked.outcome} ({checked.run.describe()})")
    search = _Search(old, CandidateTrees(oracle, old, new, jobs, single, stop))
    interrupted = False
    try:
        with stop.search() if stop is not None else nullcontext():
            search.run(new, granularity, single, refine)
    except (KeyboardInterrupt, Interrupted):
        interrupted = True
    finally:
        search.trees.session.close()  # candidates started ahead must not outlive the search
        interrupted = interrupted or (stop is not None and stop.requested)
    result = search.result(new, granularity, single)
    result.interrupted = interrupted
    result.verified = (
        oracle.judge(result.passing).outcome is Outcome.PASS
        and oracle.judge(result.failing).outcome is Outcome.FAIL
        and (result.isolated == result.failing or oracle.judge(result.isolated).outcome is Outcome.FAIL)
    )
    result.seconds = time.monotonic() - started
    if interrupted:
        raise ReductionStopped("interrupted", result)
    return result


#: Up to this many candidate requirements are trimmed one at a time; more go to ddmin.
TRIM_LIMIT = 8

#: How the changes within one file are made: (OLD text, other text, path) -> changes.
Split = Callable[[str, str, str], list[Change]]

#: The levels that split the patch on OLD after each granularity: HDD's finer levels, down to single lines.
FINER: dict[str, tuple[Granularity, ...]] = {"functions": ("statements", "lines"), "statements": ("lines",), "lines": ("lines",)}

#: A finer level with more changes than this is swept (:func:`~astreduce.isolate.trim.sweep`), else it goes to ddmin, whose
#: small subsets find smaller results (``configparser_readfp``: 1 line against 6) but whose
#: complements cost several times more tests when many changes are needed.
SWEEP_ABOVE = 24

#: Rounds of ddmin at one finer level when the result's own changes, split again, differ from it.
NARROW_ROUNDS = 3


class _Search:
    """One isolation's levels of dd, and where they stand: what :meth:`result` reports, finished or not."""

    def __init__(self, old: FileTree, trees: CandidateTrees) -> None:
        self.old = old
        self.trees = trees
        self.levels: list[LevelStats] = []
        self.base: list[Change] = []
        """Changes every candidate of the current level has: the passing files of the file level."""
        self.elements: list[Change] = []
        self.bounds = Bounds([], [])
        """The current level's passing and failing configurations (on top of :attr:`base`)."""
        self.required: Bounds | None = None
        """The requirement search's: its failing side is the smallest known set of passing changes needed."""
        self.current: tuple[str, int, int, int, float] | None = None
        """The level under way: its name, changes, and the counters and clock when it began."""
        self.isolated: list[Change] | None = None
        """The changes of the patch on OLD, once the requirements are known; then split finer, level by level."""
        self.narrowing: Bounds | None = None
        """The finer level's: its failing side is the smallest patch on OLD known at that level."""
        self.refined = False
        """The last finer level (single lines) ran to its end."""

    def run(self, new: FileTree, granularity: Granularity, single: str | None, refine: bool) -> None:
        old = self.old
        python_only = single is None  # a file of a tree is Python by its name; a single file whenever it parses
        if single is None:
            files = tree_changes(old, new)
            passing, difference = self._level("files", files)
            self.base, self.bounds = passing, Bounds([], difference)  # as one: a stop sees a consistent pair
            elements = _within(old, new, difference, lambda a, b, path: file_changes(a, b, granularity, path, python_only=True))
        else:
            elements = file_changes(old[single], new[single], granularity, single)
        self._level(granularity, elements)
        self._requirements()
        self.isolated = self._coarse()
        for finer in FINER[granularity] if refine else ():
            if finer == "statements":
                self._narrow("statements on OLD", lambda a, b, path: file_changes(a, b, "statements", path, python_only=python_only))
            else:
                with self.trees.parsing_only():  # most subsets of lines are broken: a parse, not a test
                    self.refined = self._narrow("lines on OLD", one_line_changes)

    def _narrow(self, name: str, split: Split) -> bool:
        """ddmin (or a sweep) over the patch on OLD split finer (HDD's next level), applied to OLD alone.

        The elements are the changes from OLD to the patch's version, made by
        ``split``; the result's own changes, split again, may differ from it
        (difflib aligns a smaller change differently), so ddmin runs again on
        those until they agree: then the patch that is written is 1-minimal in
        the changes it shows, and this says so (``False`` when they never agreed).
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
        """One minimisation of a finer level: ddmin for few changes, a sweep for many."""
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

    def _coarse(self) -> list[Change]:
        """The difference and the passing changes it requires, in the order of the changes: the patch before splitting."""
        passing_changes, difference = self.passing_changes, self.difference
        requires = self.required.failing if self.required is not None else passing_changes
        order = {id(c): i for i, c in enumerate(passing_changes + difference)}
        return sorted(requires + difference, key=lambda c: order[id(c)])

    def _level(self, name: str, elements: list[Change]) -> tuple[list[Change], list[Change]]:
        """dd ``+-`` over ``elements`` applied to OLD on top of :attr:`base`: (passing, difference)."""
        base = self.base
        self._begin(name, len(elements))
        self.elements = elements
        self.bounds = bounds = Bounds([], list(elements))

        def build(config: Sequence[Change]) -> FileTree:
            return apply_changes(self.old, [*base, *config])

        found = self._dd(elements, "+-", build, bounds, "OLD or NEW")
        bounds.passing, bounds.failing = list(found.passing), list(found.failing)
        self._end(len(found.difference))
        return list(found.passing), list(found.difference)

    def _requirements(self) -> None:
        """A 1-minimal subset of the passing changes that the difference needs to fail on OLD alone.

        Usually there is none (one test says so). When there is, it is most often
        a definition the difference uses — a new helper, a new import — so the
        first guess is the passing changes that define a name the difference
        uses, closed under the names they use in turn (grouping by identifier,
        as dd+ suggests); ddmin then trims the guess, or, when the guess does not
        fail, searches all passing changes.
        """
        trees, old = self.trees, self.old
        passing, difference = self.passing_changes, self.difference
        self._begin("requires", len(passing))
        self.required = required = Bounds([], list(passing), grows=False)

        def build(config: Sequence[Change]) -> FileTree:
            return apply_changes(old, [*config, *difference])

        if not passing or trees.outcome([], build, required) is Outcome.FAIL:
            required.failing = []
            self._end(0)
            return

        pool = passing
        guess = _definitions_used(old, passing, difference)
        if guess and len(guess) < len(passing) and trees.outcome(guess, build, required) is Outcome.FAIL:
            pool = guess
        if len(pool) <= TRIM_LIMIT:
            # few changes, most of them needed: one removal at a time beats ddmin's halving
            found = trim(pool, lambda trials: trees.outcomes(trials, build, required))
        else:
            found = self._minimise(pool, build, required, "the failing version")
        required.failing = found
        self._end(len(found))

    def _begin(self, name: str, changes: int) -> None:
        self.current = (name, changes, self.trees.tests, self.trees.cache_hits, time.monotonic())

    def _end(self, found: int) -> None:
        """The figures of the level that ends (or, stopped, of the level so far)."""
        assert self.current is not None
        name, changes, tests, hits, started = self.current
        trees = self.trees
        self.levels.append(LevelStats(name, changes, trees.tests - tests, trees.cache_hits - hits, found, time.monotonic() - started))
        self.current = None

    @property
    def passing_changes(self) -> list[Change]:
        return self.base + self.bounds.passing

    @property
    def difference(self) -> list[Change]:
        passing = {id(c) for c in self.bounds.passing}
        return [c for c in self.bounds.failing if id(c) not in passing]

    def result(self, new: FileTree, granularity: Granularity, single: str | None) -> IsolationResult:
        """Where the search stands: its result when it ran to the end, the best so far when it was stopped."""
        old, trees = self.old, self.trees
        passing_changes, difference = self.passing_changes, self.difference
        requires = self.required.failing if self.required is not None else passing_changes
        coarse = self._coarse()
        isolated_changes = self.narrowing.failing if self.narrowing is not None else self.isolated or coarse
        if self.current is not None:  # stopped within a level
            name = self.current[0]
            self._end(len(requires) if name == "requires" else len(isolated_changes) if self.narrowing else len(difference))
        return IsolationResult(
            granularity=granularity,
            old=old,
            new=new,
            changes=self.elements,
            passing_changes=passing_changes,
            difference=difference,
            requires=requires,
            passing=apply_changes(old, passing_changes),
            failing=apply_changes(old, passing_changes + difference),
            isolated=apply_changes(old, isolated_changes),
            isolated_changes=isolated_changes,
            coarse=apply_changes(old, coarse),
            tests=trees.tests,
            cache_hits=trees.cache_hits,
            unresolved=trees.unresolved,
            seconds=0.0,
            oracle_seconds=trees.session.oracle_seconds,
            levels=self.levels,
            single=single,
            refined=self.refined,
            syntax_rejections=trees.syntax_rejections,
        )


def _within(old: FileTree, new: FileTree, files: Iterable[Change], split: Split) -> list[Change]:
    """The changes within each of ``files`` (changes of whole files) made by ``split``.

    A file added, removed or binary stays whole: one change.
    """
    elements: list[Change] = []
    for change in files:
        before, after = old.get(change.path, ""), new.get(change.path, "")
        if change.presence is None and "\0" not in before + after:
            elements += split(before, after, change.path)
        else:
            elements.append(change)
    return elements


def _edits(changes: Iterable[Change]) -> list[tuple[str, int, int, str]]:
    """What ``changes`` do, whatever their grouping and labels: every edit, in order."""
    return sorted((change.path, edit.start, edit.end, edit.text) for change in changes for edit in change.edits)


_DEFINITION = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)", re.MULTILINE)
_ASSIGNMENT = re.compile(r"^(\w+)[ \t]*(?::[^=\n]*)?=(?!=)", re.MULTILINE)
_IMPORT = re.compile(r"^(?:from[ \t]+[\w.]+[ \t]+)?import[ \t]+(\([^)]*\)|[^\n#;]+)", re.MULTILINE)
_NAME = re.compile(r"[A-Za-z_]\w*")


def _defined_names(texts: Iterable[str]) -> set[str]:
    """Names some texts bind: defs and classes, module-level assignments, imports."""
    names: set[str] = set()
    for text in texts:
        names.update(_DEFINITION.findall(text))
        names.update(_ASSIGNMENT.findall(text))
        for imported in _IMPORT.findall(text):
            for part in imported.strip("() \t\n").split(","):
                words = part.split()
                if words:
                    names.add(words[-1] if len(words) >= 3 and words[-2] == "as" else words[0].split(".")[0])
    return names


def _used_names(texts: Iterable[str]) -> set[str]:
    return {name for text in texts for name in _NAME.findall(text)}


def _definitions_used(old: FileTree, passing: list[Change], difference: list[Change]) -> list[Change]:
    """The passing changes that the difference needs by name, transitively.

    A change is needed when its new text defines a name that needed new text
    uses, or when the text it replaces uses a name that a needed change no
    longer defines (a rename: the old uses must go too).
    """

    def new_texts(change: Change) -> list[str]:
        return [edit.text for edit in change.edits]

    def old_texts(change: Change) -> list[str]:
        base = old.get(change.path, "")
        return [base[edit.start : edit.end] for edit in change.edits]

    needed: set[str] = set()
    removed: set[str] = set()

    def take(change: Change) -> None:
        needed.update(_used_names(new_texts(change)))
        removed.update(_defined_names(old_texts(change)) - _defined_names(new_texts(change)))

    for change in difference:
        take(change)
    chosen: list[Change] = []
    remaining = list(passing)
    grew = True
    while grew:
        grew = False
        for change in list(remaining):
            if _defined_names(new_texts(change)) & needed or _used_names(old_texts(change)) & removed:
                chosen.append(change)
                remaining.remove(change)
                take(change)
                grew = True
    order = {id(c): i for i, c in enumerate(passing)}
    return sorted(chosen, key=lambda c: order[id(c)])


# --- files and folders --------------------------------------------------------


def isolate_paths(
    old: Path,
    new: Path,
    options: OracleOptions,
    granularity: Granularity = "functions",
    *,
    jobs: int = 1,
    entry: str | None = None,
    stop: StopRequest | None = None,
    refine: bool = True,
    reading: InputPolicy = InputPolicy(),
) -> IsolationResult:
    """Isolate between two files or two folders, building the oracle from ``options`` on NEW (read as
    ``reading`` says: the size limit, links in folders).

    Raises:
        UsageError: unreadable inputs, a file and a folder, bad options.
        NotReproducibleError: OLD does not pass or NEW does not fail.
        ReductionStopped: stopped (``stop``); ``.result`` holds the passing and failing versions so far.
    """
    for path in (old, new):
        if not path.exists():
            raise UsageError(f"{path}: no such file or directory")
    if old.is_dir() != new.is_dir():
        raise UsageError(f"{old} and {new}: give two files or two directories, not one of each")
    options.check()
    if jobs < 1:
        raise UsageError("-j must be at least 1")
    if old.is_dir():
        old_tree, new_tree = read_tree(old, reading), read_tree(new, reading)
        oracle = DirectoryOracle(options, entry)
        oracle.calibrate(new_tree)
        return isolate_trees(old_tree, new_tree, oracle, granularity, jobs=jobs, stop=stop, refine=refine)
    if entry is not None:
        raise UsageError("--entry goes with directories; for files the file itself runs")
    old_source, new_source = read_source(old, reading), read_source(new, reading)
    if old_source.text == new_source.text:
        raise UsageError("OLD and NEW are identical: there are no changes to isolate")
    try:
        text_oracle = build_oracle(options, Original(new_source.text, new.name, str(new.resolve().parent), new_source.encode))
    except NotReproducibleError as error:
        reason = str(error).removeprefix("input does not reproduce: ").replace("exception to reduce for", "exception to isolate for")
        raise NotReproducibleError(f"NEW does not fail: {reason}") from None
    try:
        result = isolate(
            old_source.text, new_source.text, text_oracle, granularity, jobs=jobs, filename=new.name, stop=stop, refine=refine
        )
    except ReductionStopped as stopped:
        stopped.result.patch_name = old.name
        raise
    finally:
        text_oracle.close()
    result.patch_name = old.name  # the candidates ran under NEW's name; the patch applies to OLD
    return result


def _tree_figures(tree: Mapping[str, str]) -> dict[str, int]:
    sizes = [measure(text) for text in tree.values()]
    return {
        "files": len(tree),
        "bytes": sum(s.bytes for s in sizes),
        "lines": sum(s.lines for s in sizes),
        "tokens": sum(s.tokens for s in sizes),
    }


def isolation_report(result: IsolationResult, old: str, new: str, outputs: Mapping[str, str]) -> dict[str, Any]:
    """The ``--report`` JSON of an isolation; ``"interrupted": true`` only when it was stopped."""
    report = {
        "old": old,
        "new": new,
        "granularity": result.granularity,
        "changes": len(result.changes),
        "tests": result.tests,
        "cache_hits": result.cache_hits,
        "unresolved": result.unresolved,
        "seconds": round(result.seconds, 3),
        "oracle_seconds": round(result.oracle_seconds, 3),
        "levels": [
            {"name": s.name, "changes": s.changes, "tests": s.tests, "cache_hits": s.cache_hits, "result": s.difference, "seconds": round(s.seconds, 3)}
            for s in result.levels
        ],
        "diff_lines": result.diff_lines,
        "difference": {
            "changes": len(result.difference),
            "lines": result.diff_lines,
            "labels": [c.describe() for c in result.difference],
            "path": outputs.get("difference"),
        },
        "requires": {"changes": len(result.requires), "labels": [c.describe() for c in result.requires]},
        "passing": {**_tree_figures(result.passing), "changes": len(result.passing_changes), "path": outputs.get("passing")},
        "failing": {**_tree_figures(result.failing), "changes": len(result.passing_changes) + len(result.difference), "path": outputs.get("failing")},
        "isolated": {
            **_tree_figures(result.isolated),
            "changes": len(result.isolated_changes),
            "lines": result.isolated_lines,
            "path": outputs.get("isolated"),
            "labels": [c.describe() for c in result.isolated_changes],
            "refined": result.refined,
            "unrefined": {"changes": len(result.difference) + len(result.requires), "lines": changed_lines(result.old, result.coarse)},
        },
        "syntax_rejections": result.syntax_rejections,
        "old_size": _tree_figures(result.old),
        "new_size": _tree_figures(result.new),
        "verified": result.verified,
    }
    if result.interrupted:
        report["interrupted"] = True
    return report
