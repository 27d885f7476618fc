"""The search of ``astreduce isolate``: dd ``+-`` over the changes, level by level.

Files first for two trees (a file added, removed or changed is one change),
then the changes within the files of that difference at the chosen
granularity (:func:`isolate_trees`); for two files, that second level alone
(:func:`isolate`). What dd ``+-`` finds is relative to the maximal passing
version; the passing changes the difference needs to fail on OLD alone are
then found by ddmin, guessing first by the names they define
(:func:`_requirements`). :func:`isolate_paths` reads the versions from disk
and builds the oracle; :func:`report_dict` is the ``--report`` JSON.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from astreduce.dd import Outcome, dd
from astreduce.errors import DDPreconditionError, NotReproducibleError, UsageError
from astreduce.files import FileTree, read_tree
from astreduce.isolate.align import file_changes
from astreduce.isolate.changes import GRANULARITIES, Change, Granularity, apply_changes, changed_lines, tree_changes, unified_diff
from astreduce.measure import measure
from astreduce.oracles import Oracle, Pending, Verdict
from astreduce.oracles.options import OracleOptions, build_oracle
from astreduce.oracles.tree import DirectoryOracle, FileOracle
from astreduce.reduce.single import check_match, read_source


def _digest(tree: Mapping[str, str]) -> bytes:
    digest = hashlib.blake2b(digest_size=20)
    for path in sorted(tree):
        for part in (path, tree[path]):
            data = part.encode("utf-8", errors="surrogateescape")
            digest.update(len(data).to_bytes(8, "little"))
            digest.update(data)
    return digest.digest()


class _Evaluator:
    """Outcomes of candidate trees: a cache by content, counters, ``jobs`` tests at once.

    Outcomes come in the caller's order whatever finishes first, so dd
    decides the same for every ``jobs`` (see :mod:`astreduce.dd.runner`);
    when dd stops reading, the candidates still running are cancelled.
    """

    def __init__(self, oracle: Oracle[FileTree], jobs: int) -> None:
        self.oracle = oracle
        self.jobs = jobs
        self.cache: dict[bytes, Outcome] = {}
        self.tests = 0
        self.cache_hits = 0
        self.unresolved = 0
        self.oracle_seconds = 0.0
        self.speculative = 0

    def remember(self, tree: Mapping[str, str], outcome: Outcome) -> None:
        self.cache[_digest(tree)] = outcome

    def _record(self, key: bytes, started: float, verdict: Verdict) -> Outcome:
        self.oracle_seconds += time.monotonic() - started
        self.tests += 1
        if verdict.outcome is Outcome.UNRESOLVED:
            self.unresolved += 1
        self.cache[key] = verdict.outcome
        return verdict.outcome

    def outcome(self, tree: Mapping[str, str]) -> Outcome:
        key = _digest(tree)
        if key in self.cache:
            self.cache_hits += 1
            return self.cache[key]
        started = time.monotonic()
        return self._record(key, started, self.oracle.judge(tree))

    def outcomes(self, trees: Iterable[Mapping[str, str]]) -> Iterator[Outcome]:
        if self.jobs <= 1:
            for tree in trees:
                yield self.outcome(tree)
            return
        source = iter(trees)
        window: deque[tuple[bytes, Mapping[str, str], Pending | None]] = deque()
        running: dict[bytes, Pending] = {}
        exhausted = False
        try:
            while True:
                while not exhausted and len(running) < self.jobs:
                    try:
                        tree = next(source)
                    except StopIteration:
                        exhausted = True
                        break
                    key = _digest(tree)
                    if key in self.cache or key in running:
                        window.append((key, tree, None))  # known, or started earlier in the window
                    else:
                        job = self.oracle.start(tree)
                        running[key] = job
                        window.append((key, tree, job))
                if not window:
                    return
                key, tree, pending = window.popleft()
                if pending is None:
                    yield self.outcome(tree)  # the earlier one has finished by now: a cache hit
                    continue
                started = time.monotonic()
                verdict = pending.wait()
                running.pop(key, None)
                yield self._record(key, started, verdict)
        finally:
            for pending in running.values():
                pending.cancel()
            self.speculative += len(running)


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

    @property
    def diff(self) -> str:
        """The 1-minimal difference as a unified diff: passing → failing."""
        return unified_diff(self.passing, self.failing)

    @property
    def isolated_diff(self) -> str:
        """OLD → OLD with the isolated changes: a patch that alone makes OLD fail."""
        return unified_diff(self.old, self.isolated)

    @property
    def diff_lines(self) -> int:
        """Lines removed plus lines added by :attr:`diff`."""
        return changed_lines(self.passing, self.failing)

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
) -> IsolationResult:
    """Isolate the changes from ``old_text`` (passes) to ``new_text`` (fails) that make it fail.

    Args:
        oracle: judges a candidate text; for the exec oracle build it on NEW
            (``build_oracle(options, new_text, filename=...)``), whose
            exception is the target.
        granularity: ``lines``, ``statements`` or ``functions``.
        jobs: candidates tested at once; the result is the same for every value.
        filename: the file's name (decides whether it is Python, names it in diffs).

    Raises:
        NotReproducibleError: OLD does not pass or NEW does not fail.
        UsageError: an unknown granularity, or OLD equals NEW.
    """
    name = filename or "candidate.py"
    return isolate_trees({name: old_text}, {name: new_text}, FileOracle(oracle, name), granularity, jobs=jobs, single=name)


def isolate_trees(
    old: Mapping[str, str],
    new: Mapping[str, str],
    oracle: Oracle[FileTree],
    granularity: Granularity = "functions",
    *,
    jobs: int = 1,
    single: str | None = None,
) -> IsolationResult:
    """:func:`isolate` for two versions of a package (``read_tree``): by files, then within them.

    Raises:
        NotReproducibleError: OLD does not pass or NEW does not fail.
        UsageError: an unknown granularity, or OLD equals NEW.
    """
    started = time.monotonic()
    if granularity not in GRANULARITIES:
        raise UsageError(f"unknown granularity {granularity!r}; choose from {', '.join(GRANULARITIES)}")
    if jobs < 1:
        raise UsageError("-j must be at least 1")
    old, new = dict(old), dict(new)
    if old == new:
        raise UsageError("OLD and NEW are identical: there are no changes to isolate")
    evaluator = _Evaluator(oracle, jobs)
    checked = oracle.judge(new)
    if checked.outcome is not Outcome.FAIL:
        raise NotReproducibleError(f"NEW does not fail: the oracle says {checked.outcome} ({checked.run.describe()})")
    checked = oracle.judge(old)
    if checked.outcome is not Outcome.PASS:
        raise NotReproducibleError(f"OLD does not pass: the oracle says {checked.outcome} ({checked.run.describe()})")
    evaluator.remember(new, Outcome.FAIL)
    evaluator.remember(old, Outcome.PASS)
    levels: list[LevelStats] = []
    base: list[Change] = []
    if single is None:
        files = tree_changes(old, new)
        passing, difference = _level("files", old, [], files, evaluator, levels)
        base = passing
        elements: list[Change] = []
        for change in difference:
            before, after = old.get(change.path, ""), new.get(change.path, "")
            if change.presence is None and "\0" not in before + after:
                elements += file_changes(before, after, granularity, change.path, python_only=True)
            else:  # added, removed, or binary: the file stays whole
                elements.append(change)
    else:
        elements = file_changes(old[single], new[single], granularity, single)
    passing, difference = _level(granularity, old, base, elements, evaluator, levels)
    passing_changes = base + passing
    requires = _requirements(old, passing_changes, difference, evaluator, levels)
    order = {id(c): i for i, c in enumerate(passing_changes + difference)}
    isolated_changes = sorted(requires + difference, key=lambda c: order[id(c)])
    result = IsolationResult(
        granularity=granularity,
        old=old,
        new=new,
        changes=elements,
        passing_changes=passing_changes,
        difference=difference,
        requires=requires,
        passing=apply_changes(old, passing_changes),
        failing=apply_changes(old, passing_changes + difference),
        isolated=apply_changes(old, isolated_changes),
        tests=evaluator.tests,
        cache_hits=evaluator.cache_hits,
        unresolved=evaluator.unresolved,
        seconds=0.0,
        oracle_seconds=evaluator.oracle_seconds,
        levels=levels,
        single=single,
    )
    result.verified = (
        oracle.judge(result.passing).outcome is Outcome.PASS
        and oracle.judge(result.failing).outcome is Outcome.FAIL
        and (result.isolated == result.failing or oracle.judge(result.isolated).outcome is Outcome.FAIL)
    )
    result.seconds = time.monotonic() - started
    return result


def _level(
    name: str,
    old: FileTree,
    base: list[Change],
    elements: list[Change],
    evaluator: _Evaluator,
    levels: list[LevelStats],
) -> tuple[list[Change], list[Change]]:
    """dd ``+-`` over ``elements`` applied to OLD on top of ``base``: (passing, difference)."""
    started = time.monotonic()
    tests = evaluator.tests
    hits = evaluator.cache_hits

    def build(config: Sequence[Change]) -> FileTree:
        return apply_changes(old, [*base, *config])

    def test(config: Sequence[Change]) -> Outcome:
        return evaluator.outcome(build(config))

    def batch(configs: list[Sequence[Change]]) -> Iterator[Outcome]:
        return evaluator.outcomes(build(config) for config in configs)

    try:
        found = dd(elements, test, "+-", batch=batch if evaluator.jobs > 1 else None)
    except DDPreconditionError as error:  # the ends were checked: the oracle is not deterministic
        raise NotReproducibleError(f"the oracle changed its mind about OLD or NEW ({error}); is it flaky?") from None
    evaluator.cache_hits += found.cache_hits  # configurations dd answered from its own cache
    levels.append(
        LevelStats(name, len(elements), evaluator.tests - tests, evaluator.cache_hits - hits, len(found.difference), time.monotonic() - started)
    )
    return list(found.passing), list(found.difference)


#: Up to this many candidate requirements are trimmed one at a time; more go to ddmin.
TRIM_LIMIT = 8


def _requirements(
    old: FileTree,
    passing: list[Change],
    difference: list[Change],
    evaluator: _Evaluator,
    levels: list[LevelStats],
) -> list[Change]:
    """A 1-minimal subset of ``passing`` that ``difference`` needs to fail on OLD alone.

    Usually there is none (one test says so). When there is, it is most often
    a definition the difference uses — a new helper, a new import — so the
    first guess is the passing changes that define a name the difference
    uses, closed under the names they use in turn (grouping by identifier,
    as dd+ suggests); ddmin then trims the guess, or, when the guess does not
    fail, searches all passing changes.
    """
    started = time.monotonic()
    tests = evaluator.tests
    hits = evaluator.cache_hits
    if not passing or evaluator.outcome(apply_changes(old, difference)) is Outcome.FAIL:
        levels.append(LevelStats("requires", len(passing), evaluator.tests - tests, evaluator.cache_hits - hits, 0, time.monotonic() - started))
        return []

    def test(config: Sequence[Change]) -> Outcome:
        return evaluator.outcome(apply_changes(old, [*config, *difference]))

    def batch(configs: list[Sequence[Change]]) -> Iterator[Outcome]:
        return evaluator.outcomes(apply_changes(old, [*config, *difference]) for config in configs)

    pool = passing
    guess = _definitions_used(old, passing, difference)
    if guess and len(guess) < len(passing) and test(guess) is Outcome.FAIL:
        pool = guess
    if len(pool) <= TRIM_LIMIT:
        # few changes, most of them needed: one removal at a time beats ddmin's halving
        required = _trim(pool, lambda config: evaluator.outcomes(apply_changes(old, [*c, *difference]) for c in config))
    else:
        try:
            found = dd(pool, test, "-", batch=batch if evaluator.jobs > 1 else None)
            evaluator.cache_hits += found.cache_hits
            required = list(found.failing)
        except DDPreconditionError as error:
            raise NotReproducibleError(f"the oracle changed its mind about the failing version ({error}); is it flaky?") from None
    levels.append(
        LevelStats("requires", len(passing), evaluator.tests - tests, evaluator.cache_hits - hits, len(required), time.monotonic() - started)
    )
    return required


def _trim(changes: list[Change], outcomes: Callable[[list[list[Change]]], Iterator[Outcome]]) -> list[Change]:
    """Remove one change at a time, in one sweep, while the rest still FAILs.

    Each kept change was needed when it was tried (against a superset of the
    result), so the result is 1-minimal when the oracle is monotone on these
    configurations; a second sweep would cost as many tests as changes kept.
    The remaining removals go to ``outcomes`` as one ordered batch; the first
    that FAILs is taken and the sweep goes on from there.
    """
    kept = list(changes)
    position = 0
    while position < len(kept) and len(kept) > 1:
        trials = [kept[:i] + kept[i + 1 :] for i in range(position, len(kept))]
        results = outcomes(trials)
        found = None
        try:
            for offset, outcome in enumerate(results):
                if outcome is Outcome.FAIL:
                    found = offset
                    break
        finally:
            close = getattr(results, "close", None)
            if close is not None:
                close()
        if found is None:
            break
        kept = trials[found]
        position += found
    return kept


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
) -> IsolationResult:
    """Isolate between two files or two folders, building the oracle from ``options`` on NEW.

    Raises:
        UsageError: unreadable inputs, a file and a folder, bad options.
        NotReproducibleError: OLD does not pass or NEW does not fail.
    """
    for path in (old, new):
        if not path.exists():
            raise UsageError(f"{path}: no such file or directory")
    if old.is_dir() != new.is_dir():
        raise UsageError(f"{old} and {new}: give two files or two directories, not one of each")
    options.check()
    check_match(options.match)
    if options.expect is not None and not options.expect.strip():
        raise UsageError("--expect needs an exception name like AssertionError[:message], not an empty string")
    if jobs < 1:
        raise UsageError("-j must be at least 1")
    if old.is_dir():
        old_tree, new_tree = read_tree(old), read_tree(new)
        oracle = DirectoryOracle(options, entry)
        oracle.calibrate(new_tree)
        return isolate_trees(old_tree, new_tree, oracle, granularity, jobs=jobs)
    if entry is not None:
        raise UsageError("--entry goes with directories; for files the file itself runs")
    old_source, new_source = read_source(old), read_source(new)
    if old_source.text == new_source.text:
        raise UsageError("OLD and NEW are identical: there are no changes to isolate")
    try:
        text_oracle = build_oracle(
            options, new_source.text, filename=new.name, search_path=str(new.resolve().parent), encode=new_source.encode
        )
    except NotReproducibleError as error:
        reason = str(error).removeprefix("input does not reproduce: ").replace("exception to reduce for", "exception to isolate for")
        raise NotReproducibleError(f"NEW does not fail: {reason}") from None
    try:
        return isolate(old_source.text, new_source.text, text_oracle, granularity, jobs=jobs, filename=new.name)
    finally:
        close = getattr(text_oracle, "close", None)
        if close is not None:
            close()


def _size(tree: Mapping[str, str]) -> dict[str, int]:
    sizes = [measure(text) for text in tree.values()]
    return {
        "files": len(tree),
        "bytes": sum(s.bytes for s in sizes),
        "lines": sum(s.lines for s in sizes),
        "tokens": sum(s.tokens for s in sizes),
    }


def report_dict(result: IsolationResult, old: str, new: str, outputs: Mapping[str, str]) -> dict[str, Any]:
    """The ``--report`` JSON of an isolation."""
    return {
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
        "difference": {"changes": len(result.difference), "lines": result.diff_lines, "labels": [c.describe() for c in result.difference]},
        "requires": {"changes": len(result.requires), "labels": [c.describe() for c in result.requires]},
        "passing": {**_size(result.passing), "changes": len(result.passing_changes), "path": outputs.get("passing")},
        "failing": {**_size(result.failing), "changes": len(result.passing_changes) + len(result.difference), "path": outputs.get("failing")},
        "isolated": {
            **_size(result.isolated),
            "changes": len(result.difference) + len(result.requires),
            "lines": changed_lines(result.old, result.isolated),
            "path": outputs.get("isolated"),
        },
        "old_size": _size(result.old),
        "new_size": _size(result.new),
        "verified": result.verified,
    }
