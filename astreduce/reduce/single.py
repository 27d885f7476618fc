"""One reduction, from an input text and an oracle to a verified, smallest output.

:func:`reduce_source` is the Python API behind ``astreduce reduce``: it
gathers its keywords into one :class:`ReduceConfig`, checks that the
original reproduces (pysource-minimize's lesson: check that the failure
survives before reducing), runs a strategy, re-runs the final result
outside the cache to verify it, and optionally formats it with black when
the formatted version still reproduces. :func:`reduce_file` adds reading and
writing files in their own encoding, BOM and line endings
(:mod:`astreduce.files`). A tree of files (:mod:`astreduce.reduce.tree`)
starts from the same :class:`ReduceConfig` and :func:`make_plan`.
"""

from __future__ import annotations

import functools
import gc
from collections import Counter
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar

from astreduce.errors import NotReproducibleError, ReductionStopped, TransformLoadError, UsageError
from astreduce.files import check_output_path, default_output, newline_of, read_source
from astreduce.writes import write_atomically
from astreduce.source.measure import Size, ast_nodes, measure
from astreduce.oracles import Oracle, Target, Verdict, plugged
from astreduce.run import Run
from astreduce.oracles.execution import ExecOracle
from astreduce.oracles.place import Place, place_of
from astreduce.oracles.options import OracleOptions, Original, build_oracle, require_target, said_of_test, took
from astreduce.oracles.predicate import PredicateOracle
from astreduce.oracles.predicate import outcome_line as describe_call
from astreduce.reduce.guards import guard
from astreduce.reduce.verify import format_with_black, verify_and_format
from astreduce.reduce.provenance import Provenance, annotated
from astreduce.outcome import Outcome
from astreduce.search.cache import OutcomeStore, default_cache_dir
from astreduce.search.cluster import Cluster, ClusterOracle
from astreduce.search.session import (
    Budget, Interrupted, ProgressEvent, SearchFigures, Session, StopRequest, keeps_lines, protected_lines,
)
from astreduce.search.schedule import after_rounds, ordered
from astreduce.search.strategies import STRATEGIES, Plan, run_strategy
from astreduce.source.foreign import ForeignParser
from astreduce.source.origins import Lineage
from astreduce.source.syntax import check_parses, parse_foreign, parses_here, syntax_interpreter
from astreduce.source.tree import Tree, parse_or_none
from astreduce.transforms import TextTransform, Transform, load_transforms
from astreduce.transforms.constants import Recorder, ValueFromTrace


R = TypeVar("R", bound="Stoppable")


class Stoppable(Protocol):
    """A job's result as :func:`stopped_if_interrupted` reads it."""

    @property
    def interrupted(self) -> bool: ...


class Search(Protocol):
    """A search that takes the strategy's place (:func:`reduce_with`'s ``search``)."""

    name: str

    def run(self, session: Session) -> None: ...


@dataclass
class Result(SearchFigures):
    """What a reduction produced, with the figures of its report."""

    text: str
    original: str
    input_size: Size
    output_size: Size
    resumed: int = 0
    """Outcomes answered by the persistent cache (``--resume``) instead of a test."""
    workers: dict[str, int] = field(default_factory=dict)
    """With a cluster (``--dask``): per worker, the search's tests it ran to the end (calibration and the
    final check not counted; a test that ended before the search passed over it is, so the sum may exceed ``tests``)."""
    provenance: Provenance | None = None
    """Where each line of the result, and its failure, came from."""

    @property
    def input_ast_nodes(self) -> int | None:
        return ast_nodes(self.original)

    @property
    def output_ast_nodes(self) -> int | None:
        return ast_nodes(self.text)


@dataclass(frozen=True)
class ReduceConfig:
    """Everything a reduction is told before it starts, gathered once.

    :func:`reduce_source` keeps its keyword signature (the public API) and
    builds one of these; the machinery below, and a tree's reduction
    (:func:`~astreduce.reduce.tree.reduce_tree`), take it instead of a long
    list of parameters.
    """

    options: OracleOptions = field(default_factory=OracleOptions)
    """The oracle's options; a reduction built from them also traces as they say."""
    strategy: str = "auto"
    transforms: tuple[str, ...] | None = None
    """Transform names (``None``: every registered transform, and the extras)."""
    jobs: int = 1
    format: bool = False
    filename: str = "candidate.py"
    search_path: str = ""
    """The input's folder: first on ``sys.path`` in every test."""
    encode: Callable[[str], bytes] | None = None
    """How a candidate is written for a command oracle (the input's encoding)."""
    resume: bool = False
    cache_dir: str | Path | None = None
    exhaustive: bool = False
    coverage_first: bool | None = None
    """A tree: run the original once with coverage and try first to cut the files it never imports and the code it
    never executes (``--coverage-first``, :mod:`~astreduce.reduce.unexecuted`); None: for a tree of
    :data:`~astreduce.reduce.unexecuted.COVERAGE_FIRST_FILES` Python files or more."""
    cluster: Cluster | None = None
    """Run the tests on this Dask cluster's workers (``--dask``); the original is calibrated there too."""
    max_tests: int | None = None
    """Stop after this many tests (``--max-tests``) with the best so far, verified: a finished result."""
    max_seconds: float | None = None
    """Stop after this many seconds (``--max-time``), from the start, the same way."""
    keep: str | None = None
    """Lines this regular expression finds are never deleted or rewritten (``--keep``), as those marked
    ``# astreduce: keep``."""
    annotate: bool = False
    """End each line of the result that has an origin with a ``# from FILE:LINE`` comment (``--annotate``), when the
    annotated result still reproduces."""

    def __post_init__(self) -> None:
        self.check()  # once, where the settings are gathered: every job gets settings that go together

    def original(self, text: str) -> Original:
        """The input ``text`` as the oracle is calibrated on it: its name, folder and encoding."""
        return Original(text, self.filename, self.search_path, self.encode)

    def budget(self) -> Budget | None:
        """The budget the reduction's sessions share, when one is set (it starts now)."""
        return Budget.of(self.max_tests, self.max_seconds)

    def check(self) -> None:
        """Raise UsageError for an unknown strategy, a ``-j`` below 1, a bad budget or ``--keep``, or oracle
        options that do not go together."""
        self.options.check()
        if self.strategy not in STRATEGIES:
            raise UsageError(f"unknown strategy {self.strategy!r}; choose from {', '.join(STRATEGIES)}")
        if self.jobs < 1:
            raise UsageError("-j must be at least 1")
        Budget.check(self.max_tests, self.max_seconds)
        if self.keep is not None:
            try:
                re.compile(self.keep)
            except re.error as error:
                raise UsageError(f"--keep {self.keep!r}: not a valid regular expression: {error}") from None


@dataclass(frozen=True)
class Planning:
    """What a job prepares before its oracle runs the original, to build its :class:`Plan` once after:
    the transforms (an unknown one is an error before any test) and another interpreter's parser when the
    candidates need one (close it at the end)."""

    transforms: tuple[Transform, ...]
    parser: ForeignParser | None
    extras: bool

    @classmethod
    def of(cls, config: ReduceConfig) -> Planning:
        """Raises:
            UsageError: an unknown transform, an unknown interpreter.
            TransformLoadError: a transform fails to load, has no row in the schedule, or a row of the wrong
                phase (a text transform belongs in the last phase, alone).
        """
        # the extras (text passes, value tracing, ...) go with every transform, or every one but a few
        leaving_out = config.transforms is not None and all(n.startswith("-") for n in config.transforms)
        transforms = tuple(ordered(load_transforms(config.transforms)))  # each one's row, before any test
        for transform in transforms:
            if isinstance(transform, TextTransform) != after_rounds(transform.name):
                raise TransformLoadError(
                    f"transform {transform.name!r}: a text transform runs in the schedule's last phase, and only a text "
                    "transform does (its row's phase)"
                )
        python_path = syntax_interpreter(config.options.python)
        parser = ForeignParser(python_path) if python_path is not None else None
        return cls(transforms, parser, config.transforms is None or leaving_out)

    @property
    def parse(self) -> Callable[[str], Tree | None]:
        """How a candidate is parsed: another interpreter's parser, or this one's."""
        return functools.partial(parse_foreign, self.parser) if self.parser is not None else parse_or_none

    def parses(self, text: str) -> bool:
        """Whether ``text`` parses under the candidates' interpreter's grammar."""
        return self.parse(text) is not None if self.parser is not None else parses_here(text)

    def plan(
        self, config: ReduceConfig, *, unparsable: bool = False, start: tuple[str, Tree | None] | None = None,
    ) -> Plan:
        """The plan, complete: ``unparsable`` (the oracle's trait), ``start`` (the original, parsed once)."""
        return Plan.of(
            self.transforms, extras=self.extras, parse=self.parse, foreign_parser=self.parser is not None,
            unparsable_text=unparsable, exhaustive=config.exhaustive, start=start,
        )

    def close(self) -> None:
        if self.parser is not None:
            self.parser.close()


def make_exec_oracle(
    text: str,
    *,
    expect: str | None = None,
    match: str = "message",
    timeout: float | None = None,
    filename: str = "candidate.py",
    append: str = "",
    search_path: str = "",
) -> tuple[ExecOracle, Run]:
    """An exec oracle calibrated on the original ``text``, and the original's run.

    Raises:
        NotReproducibleError: the original does not raise the expected
            exception (or, without ``expect``, any exception).
    """
    OracleOptions(expect=expect, match=match).check()
    target = Target.parse(expect, match) if expect is not None else None
    oracle = ExecOracle(target=target, filename=filename, append=append, search_path=search_path)
    first = oracle.calibrate(text, match=match, timeout=timeout)
    require_target(oracle, first)
    return oracle, first.run


def reduce_source(
    text: str,
    oracle: Oracle[str] | None = None,
    *,
    expect: str | None = None,
    match: str = "message",
    same_frame: bool = False,
    anywhere: bool = False,
    strategy: str = "auto",
    transforms: list[str] | None = None,
    timeout: float | None = None,
    filename: str = "candidate.py",
    append: str = "",
    format: bool = False,
    on_improve: Callable[[str], None] | None = None,
    on_progress: Callable[[ProgressEvent], None] | None = None,
    search_path: str = "",
    options: OracleOptions | None = None,
    jobs: int = 1,
    python: str | None = None,
    encode: Callable[[str], bytes] | None = None,
    resume: bool = False,
    cache_dir: str | Path | None = None,
    stop: StopRequest | None = None,
    exhaustive: bool = False,
    interesting: Callable[[str], object] | None = None,
    cluster: Cluster | None = None,
) -> Result:
    """Reduce ``text`` to a smallest program the oracle still judges FAIL.

    Without ``oracle``, one is built from ``options`` (see
    :class:`~astreduce.oracles.options.OracleOptions`), or else an exec
    oracle from ``expect`` (``EXC`` or ``EXC:MESSAGE``; without it the
    original's own exception becomes the target), ``match``, ``append``,
    ``timeout`` and ``python``. A candidate's failure must happen where the
    original's did (its raising line comes from the same function of the
    input, see :mod:`astreduce.oracles.place`) unless ``anywhere`` is true;
    ``same_frame`` asks for that check, the default, and is kept for older callers. ``jobs`` candidates run at once,
    speculatively; the result is the same for every ``jobs``. With
    ``resume``, outcomes persist in ``cache_dir`` (default
    ``~/.cache/astreduce``), so a rerun continues where an interrupted one stopped.

    An ``oracle`` given here needs only ``identity`` and ``judge``; with
    ``start`` it can run tests at once (``jobs``), and its ``close`` is
    called at the end.

    ``interesting`` is the simplest oracle: a function of the candidate's
    text, true when the candidate still shows the problem. A false result
    is PASS; an exception, a crash or a hang inside it is UNRESOLVED. It runs
    in a child forked for each test, in the sandbox, never in this process,
    with ``timeout`` seconds (default: 10 times its call on ``text``, at
    least 2): see :mod:`astreduce.oracles.predicate` for what that protects
    and what it does not. What it changes (a global, a file's position) stays
    in the child. No other oracle option goes with it.

    ``cluster`` (from :func:`astreduce.search.cluster.connect`) runs the tests
    on a Dask cluster's workers, ``jobs`` at once (pass ``cluster.threads``
    to keep every worker busy); the result is the same.

    ``stop`` (a :class:`StopRequest`) lets a signal handler stop the search
    between two tests. ``exhaustive`` retries, in every round, each single
    edit that failed before (see :func:`~astreduce.search.greedy.apply_greedily`).

    Raises:
        UsageError: unknown strategy or transform; input that the strategy cannot parse.
        NotReproducibleError: the original does not FAIL.
        ReductionStopped: interrupted (Ctrl-C, ``stop``); ``.result`` holds the best so far, verified.
    """
    if interesting is not None:
        oracle = predicate_oracle(interesting, text, oracle=oracle, options=options, timeout=timeout, expect=expect, python=python)
    if options is None:
        if same_frame and anywhere:
            raise UsageError("same_frame and anywhere contradict each other: the same place is the default")
        options = OracleOptions(expect=expect, match=match, append=append, timeout=timeout, python=python, anywhere=anywhere)
    config = ReduceConfig(
        options=options, strategy=strategy, transforms=tuple(transforms) if transforms is not None else None,
        jobs=jobs, format=format, filename=filename, search_path=search_path, encode=encode,
        resume=resume, cache_dir=cache_dir, exhaustive=exhaustive, cluster=cluster,
    )
    return reduce_with(text, config, oracle, on_improve=on_improve, on_progress=on_progress, stop=stop)


def predicate_oracle(
    interesting: Callable[[str], object], text: str, *, oracle: object, options: OracleOptions | None,
    timeout: float | None, expect: str | None, python: str | None,
) -> PredicateOracle:
    """The oracle of ``reduce_source(interesting=...)``, calibrated on ``text``.

    Raises:
        UsageError: another oracle or oracle option given with it, or ``interesting`` is not callable.
        NotReproducibleError: ``interesting(text)`` is not true.
    """
    if not callable(interesting):
        raise UsageError(f"interesting must be a function of the candidate's text, not {type(interesting).__name__}")
    if oracle is not None or options is not None or expect is not None or python is not None:
        raise UsageError("interesting is an oracle of its own: give no oracle, options, expect or python with it")
    judged = PredicateOracle(interesting)
    first = judged.calibrate(text, timeout=timeout)
    if first.outcome is not Outcome.FAIL:
        raise NotReproducibleError(f"input does not reproduce: interesting(input) {describe_call(first.run)}")
    return judged


def stopped_if_interrupted(result: R) -> R:
    """``result``, or :class:`ReductionStopped` carrying it when the reduction was interrupted (Ctrl-C, a stop)."""
    if result.interrupted:
        raise ReductionStopped("interrupted", result)
    return result


def reduce_with(
    text: str,
    config: ReduceConfig,
    oracle: object | None = None,
    *,
    on_improve: Callable[[str], None] | None = None,
    on_progress: Callable[[ProgressEvent], None] | None = None,
    stop: StopRequest | None = None,
    search: Search | None = None,
    on_note: Callable[[str], None] | None = None,
    echo: Callable[[str], None] | None = None,
) -> Result:
    """:func:`reduce_source` with its settings gathered in ``config``; ``oracle`` as there.

    ``search`` replaces the strategy: it runs on the session instead, and the
    result names it (``--grammar``: :class:`~astreduce.grammar.GrammarSearch`).
    ``on_note`` hears, once the original has run, what the reduction is for;
    ``echo`` (standard error by default) how each test ended, with ``options.verbose``.
    """
    started = time.monotonic()
    budget = config.budget()
    planning = Planning.of(config)
    strategy = config.strategy if search is None else search.name
    first_tree = None
    if search is None and STRATEGIES[config.strategy].on_trees:
        # the tree the search starts from: parsing a 100 KB original costs 60 ms, so once
        first_tree = (text, check_parses(text, config.filename, planning.parser))
    calibrating = time.monotonic()
    runs: list[Verdict] = []
    """The original's runs, when this reduction built its oracle."""
    judged: Oracle[str]
    cluster = config.cluster
    clustered: ClusterOracle[str] | None = None
    """The oracle whose tests run on the cluster: it counts them per worker."""
    if oracle is None and cluster is not None:
        judged = clustered = cluster.build_oracle(config.options, config.original(text))
    elif oracle is None:
        judged = build_oracle(config.options, config.original(text), jobs=config.jobs, on_runs=runs.extend)
    else:
        judged = plugged(oracle)
        if cluster is not None:
            judged = clustered = cluster.adopt(judged)
        first = judged.judge(text)
        if first.outcome is not Outcome.FAIL:
            raise NotReproducibleError(f"input does not reproduce: the oracle says {first.outcome} ({first.run.describe()})")
    calibrating = time.monotonic() - calibrating  # the original's runs: waiting for the oracle too
    name = config.filename
    lineage = Lineage({name: text})
    guarded = guard(
        judged, options=config.options, lineage=lineage, tree_of=lambda candidate: {name: candidate}, parses=planning.parses,
    )
    judged, place = guarded.oracle, guarded.place
    traits = judged.traits
    plan = planning.plan(config, unparsable=traits.unparsable, start=first_tree)
    on_test = None
    if config.options.verbose > 0:  # numbered as the session counts: never a test started ahead and not needed
        write, lines = echo or to_stderr, config.options.verbose
        on_test = lambda number, verdict: write(said_of_test(number, verdict, lines))
    if on_note is not None:
        on_note(
            f"target: {traits.target or 'as the oracle judges'} ({took(runs, calibrating)}); {guarded.note}"
        )
    configure_tracing(plan.transforms, traits.tracer, enabled=traits.tracer is not None and not plan.foreign_parser)
    start = judged.start if traits.starts else None
    saved: list[str] = []

    def improve(candidate: str) -> None:
        # mid-pass the session saves shorter FAILing candidates without making them
        # its best (that waits for the end of the pass); an interruption must keep them
        saved[:] = [candidate]
        lineage.advance({name: candidate})
        if on_improve is not None:
            on_improve(candidate)

    store = None
    if config.resume:  # by strategy: a rerun's tests plus those answered from disk are a fresh run's (compare's rows)
        store = OutcomeStore(
            config.cache_dir or default_cache_dir(), f"{judged.identity}|{config.filename}|{config.search_path}|{strategy}"
        )

    def worker_counts() -> Counter[str]:
        return Counter(clustered.tests_by_worker) if clustered is not None else Counter()

    counted = worker_counts()
    session = Session(
        text, judged.judge, on_improve=improve, on_progress=on_progress, start=start, jobs=config.jobs, store=store,
        prepare=getattr(judged, "prepare") if traits.prepares else None, waited=calibrating, budget=budget, stop=stop,
        protected=protected_lines(text, config.keep), on_test=on_test,
        # it runs the program: layout is moot (not for lines, chars, tokens: the literature's ddmin, counted as such)
        alike=traits.prepares and STRATEGIES[config.strategy].on_trees,
    )
    if on_improve is not None:
        on_improve(text)  # from now on the output exists and reproduces, whatever happens
    # rendering recurses along the tree: deep expressions need more than the default limit
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    interrupted = False
    try:
        try:
            with _collecting_rarely(), stop.search() if stop is not None else nullcontext():
                if search is None:
                    run_strategy(config.strategy, session, plan)
                else:
                    search.run(session)
        except (KeyboardInterrupt, Interrupted):
            interrupted = True
        finally:
            session.close()  # candidates started ahead must not outlive the search
            interrupted = interrupted or (stop is not None and stop.requested)
        budget_ended = budget_spent(budget, interrupted, stop)
        ending = Ending(
            strategy=strategy, started=started, interrupted=interrupted and not budget_ended, budget_ended=budget_ended,
            latest=saved[0] if interrupted and saved else None,
            workers=dict(sorted((worker_counts() - counted).items())),  # the search's tests, before the final check
            target=traits.target,
            empty_note=config.options.empty_result_note() if oracle is None
            else "the result is empty, so the oracle may judge something other than the program",
        )
        with _collecting_rarely():  # black's import made 44 collections of the search's heap: 0.2 s
            result = _finish(
                session, judged, ending, format=config.format and not ending.interrupted, lineage=lineage, name=name,
                place=place, annotate=config.annotate and not ending.interrupted,
            )
    finally:
        judged.close()
        planning.close()
        if store is not None:
            store.close()
    return stopped_if_interrupted(result)


@dataclass(frozen=True)
class Ending:
    """How a search ended, and what its result reports besides the session's figures."""

    strategy: str
    started: float
    """When the reduction started (``time.monotonic()``)."""
    interrupted: bool
    """A stop request or Ctrl-C ended it (not the budget)."""
    budget_ended: bool
    latest: str | None
    """The last candidate saved when it was interrupted, which may be smaller than the session's best."""
    workers: dict[str, int]
    target: str
    empty_note: str
    """What the result says when it is empty and the input was not."""


@contextmanager
def _collecting_rarely() -> Iterator[None]:
    """Run the search with the cycle collector seldom awake.

    A search makes trees, keys and candidates by the hundred thousand, and
    nearly none of them is in a reference cycle: reference counting frees
    them. At Python's default thresholds the collector still ran about
    2,000 times on stdlib_argparse, walking the cached code and trees: 0.8 s
    of astreduce's own 8 s. The objects from before the search (modules,
    the original's tree) are frozen out of its walks; the thresholds come
    back when the search ends.
    """
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()


def to_stderr(text: str) -> None:
    """Write a line on standard error (how each test ended, ``--verbose``, when no one else says it)."""
    sys.stderr.write(text + "\n")


def budget_spent(budget: Budget | None, interrupted: bool, stop: StopRequest | None) -> bool:
    """Whether a search that ended early (``interrupted``) ended for its budget, not for a stop request."""
    return interrupted and budget is not None and budget.spent and not (stop is not None and stop.requested)


def configure_tracing(transforms: Sequence[Transform], recorder: Recorder | None, *, enabled: bool) -> None:
    """Hand ``value-from-trace`` its recorder (an oracle's :attr:`~astreduce.oracles.Traits.tracer`), or switch it off."""
    for transform in transforms:
        if isinstance(transform, ValueFromTrace):
            transform.configure(recorder=recorder, enabled=enabled)


def _finish(
    session: Session, oracle: Oracle[str], ending: Ending, *, format: bool, lineage: Lineage, name: str,
    place: Place | None, annotate: bool = False,
) -> Result:
    """Verify the best candidate (``ending.latest``, the last one saved, when it is smaller), format it, measure it,
    and say where its lines and its failure come from (``lineage``; ``place``: the original's, when checked): the
    result, built once."""
    best = session.best
    latest = ending.latest
    if latest is not None and latest != best and measure(latest).key < session.best_size.key:
        best = latest
    failed: list[Run] = []
    checking = [0.0]

    def reproduces(text: str) -> bool:
        waited = time.monotonic()
        try:
            verdict = oracle.judge(text)
            if verdict.outcome is Outcome.FAIL:
                failed[:] = [verdict.run]
            return verdict.outcome is Outcome.FAIL
        finally:
            checking[0] += time.monotonic() - waited

    newline = newline_of(session.text)

    def pretty(text: str) -> str | None:
        formatted = format_with_black(text, newline=newline)
        return formatted if formatted is None or keeps_lines(formatted, session.protected) else None  # black may rewrite a kept line

    def origins(text: str) -> str:
        return annotated(text, lineage.trace({name: text})[name].origins)

    best, verified, formatted, notes = verify_and_format(
        best, reproduces, pretty if format else None, origins if annotate else None,
    )
    original_place = place if place is not None else place_of(oracle.traits.raised_at, Lineage({name: session.text}), {name: session.text})
    provenance = Provenance.of(
        lineage, {name: best}, original_place, failed[0].raised_at if failed else None, same_place=place is not None
    )
    output_size = measure(best)
    if output_size.tokens == 0 and session.original_size.tokens > 0:
        notes.append(ending.empty_note)
    return Result(
        text=best,
        original=session.text,
        strategy=ending.strategy,
        tests=session.tests,
        cache_hits=session.cache_hits,
        seconds=time.monotonic() - ending.started,
        oracle_seconds=session.oracle_seconds + checking[0],
        verified=verified,
        passes=session.passes,
        history=session.history,
        input_size=session.original_size,
        output_size=output_size,
        formatted=formatted,
        interrupted=ending.interrupted,
        notes=notes,
        resumed=session.resumed,
        speculative=session.speculative,
        syntax_rejections=session.syntax_rejections,
        failing_tests=session.failing_tests,
        unresolved_tests=session.unresolved_tests,
        budget_ended=ending.budget_ended,
        target=ending.target,
        workers=ending.workers,
        provenance=provenance,
    )


def reduce_file(
    path: str | Path,
    output: str | Path | None = None,
    **options: object,
) -> Result:
    """Reduce the file at ``path``; write the result to ``output`` (default ``NAME.reduced.py``).

    The output is written in the input's encoding, BOM and line endings, and
    updated atomically whenever a smaller reproducing candidate is found.
    ``options`` are those of :func:`reduce_source`.
    """
    source = read_source(path)
    path = Path(path)
    target = Path(output) if output is not None else default_output(path)
    check_output_path(target, path)

    def save(text: str) -> None:
        write_atomically(target, source.encode(text))

    options.setdefault("filename", path.name)
    options.setdefault("search_path", str(path.resolve().parent))
    try:
        result = reduce_source(source.text, on_improve=save, **options)  # type: ignore[arg-type]  # options are reduce_source's keywords
    except ReductionStopped as stopped:
        save(stopped.result.text)
        raise
    save(result.text)
    return result
