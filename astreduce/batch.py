"""Many inputs, one reproducer per distinct failure: ``astreduce batch``.

A fuzzing farm leaves hundreds of crash files, most of them the same bug in
different surroundings. The batch runs every input once and computes its
failure signature (:mod:`astreduce.oracles.signature`), puts inputs with
equal signatures in one *bucket*, and reduces the smallest input of each
bucket against that signature, so that a reduction cannot slip to another
bucket's failure. Inputs that do not fail are listed, never dropped.

Two functions do the work, each on one picklable record, so that a cluster
can run them elsewhere: :func:`run_input` (one input, run once) and
:func:`reduce_bucket` (one bucket's reduction). :func:`run_batch` drives
them through a ``map``-like callable: the built-in ``map`` here, one that
hands them to remote workers for a cluster. Inputs are only read; each
bucket's reduced file is written atomically into the output folder as soon
as it shrinks, so an interruption keeps every finished bucket.
"""

from __future__ import annotations

import builtins
import functools
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from astreduce.errors import (
    AstReduceError,
    InputNotCompilingError,
    NotReproducibleError,
    ReductionStopped,
    UsageError,
)
from astreduce.files import read_source
from astreduce.writes import write_atomically
from astreduce.file_checks import CHECKED
from astreduce.oracles import Oracle
from astreduce.oracles.options import (
    RetryingOracle,
    calibrated_oracle,
    original_runs,
    require_reliable,
)
from astreduce.oracles.signature import SignatureOracle, signature_of
from astreduce.reduce.single import ReduceConfig, Result, reduce_with
from astreduce.search.session import StopRequest, ProgressEvent
from astreduce.source.measure import measure

#: Seconds an input's first run may take when ``--timeout`` is not given (a hang is not a bucket
#: unless ``--hang`` asks for one).
FIRST_RUN_TIMEOUT = 60.0

#: A ``map``: applies a function to each item, yielding the results in the items' order.
Mapper = Callable[[Callable[[Any], Any], Iterable[Any]], Iterable[Any]]


@dataclass(frozen=True)
class InputRun:
    """One input's first run: its size, and its signature or why it does not reproduce."""

    path: str
    tokens: int
    bytes: int
    signature: str | None
    reason: str = ""
    """For an input without a signature: what happened instead."""


@dataclass(frozen=True)
class BucketJob:
    """One bucket's reduction, as a worker needs it."""

    signature: str
    path: str
    """The bucket's smallest input: the one reduced."""
    output: str
    """Where the reduced file goes (written as it shrinks)."""
    config: ReduceConfig


@dataclass(frozen=True)
class BucketResult:
    """What one bucket's reduction produced (``text`` is ``None`` when it could not run)."""

    signature: str
    path: str
    output: str
    text: str | None
    tokens_before: int
    tokens_after: int | None = None
    tests: int = 0
    seconds: float = 0.0
    verified: bool = False
    interrupted: bool = False
    error: str = ""


@dataclass
class Bucket:
    """Inputs that fail the same way; the first is the smallest."""

    signature: str
    members: list[InputRun]
    results: list[BucketResult] = field(default_factory=list)


@dataclass
class BatchReport:
    """Every input's fate: its bucket, or why it does not reproduce."""

    buckets: list[Bucket]
    not_reproducing: list[InputRun]
    interrupted: bool = False
    seconds: float = 0.0

    @property
    def verified(self) -> bool:
        """Whether every bucket was reduced, and every reduced file reproduces."""
        return bool(self.buckets) and all(b.results and all(r.verified for r in b.results) for b in self.buckets)

    def to_json(self) -> dict[str, Any]:
        """The ``--report`` file: ``buckets`` (signature, files, reduced) and ``not_reproducing``."""
        return {
            "buckets": [
                {
                    "signature": bucket.signature,
                    "files": [m.path for m in bucket.members],
                    "reduced": [
                        {
                            "input": r.path,
                            "output": r.output if r.text is not None else None,
                            "tokens": [r.tokens_before, r.tokens_after],
                            "tests": r.tests,
                            "seconds": round(r.seconds, 3),
                            "verified": r.verified,
                            "interrupted": r.interrupted,
                            **({"error": r.error} if r.error else {}),
                        }
                        for r in bucket.results
                    ],
                }
                for bucket in self.buckets
            ],
            "not_reproducing": [{"file": r.path, "reason": r.reason} for r in self.not_reproducing],
            "interrupted": self.interrupted,
            "seconds": round(self.seconds, 3),
        }


class BatchStop(StopRequest):
    """A stop request that a batch honours between two inputs or reductions too.

    A plain :class:`StopRequest` refuses a request while no search runs (the
    signal handler then interrupts at once); a batch instead finishes the
    input or the calibration at hand and stops before the next one, and a
    search that starts after the request stops at its first test.
    """

    def request(self) -> bool:
        """Ask for a stop, searching or not (a search that starts later stops at its first test)."""
        if self.requested:
            return False
        self.requested = True
        return True


def _config_for(config: ReduceConfig, path: Path) -> tuple[ReduceConfig, str]:
    """The reduction's settings for one input (its name, folder and encoding), and its text."""
    source = read_source(path, CHECKED)  # the command line checked the inputs, under its own limit
    return replace(config, filename=path.name, search_path=str(path.resolve().parent), encode=source.encode), source.text


def run_input(path: str, config: ReduceConfig) -> InputRun:
    """Run one input once under the oracle the options describe; its signature, or why it has none.

    An input that cannot be read is listed with the reason, as one that does not fail.

    Raises:
        UsageError: options that cannot work (the same for every input).
    """
    options = config.options
    first_options = options if options.timeout is not None else replace(options, timeout=FIRST_RUN_TIMEOUT)
    try:
        local, text = _config_for(config, Path(path))
    except UsageError as error:  # this input alone cannot be read: list it, go on with the others
        return InputRun(path, 0, 0, None, str(error))
    size = measure(text)
    try:
        oracle, first = calibrated_oracle(first_options, local.original(text))
    except NotReproducibleError as error:
        return InputRun(path, size.tokens, size.bytes, None, str(error).removeprefix("input does not reproduce: "))
    except InputNotCompilingError as error:  # this input alone: list it (--expect SyntaxError makes it a failure)
        return InputRun(path, size.tokens, size.bytes, None, str(error))
    oracle.close()
    if first.run.ending == "timeout" and options.hang is None:
        return InputRun(path, size.tokens, size.bytes, None, f"timed out ({first.run.detail})")
    return InputRun(path, size.tokens, size.bytes, signature_of(first.run, local.filename))


def group(runs: Iterable[InputRun]) -> tuple[list[Bucket], list[InputRun]]:
    """Buckets by signature (each smallest input first, buckets in the order of their first input), and the rest."""
    buckets: dict[str, list[InputRun]] = {}
    rest: list[InputRun] = []
    for run in runs:
        if run.signature is None:
            rest.append(run)
        else:
            buckets.setdefault(run.signature, []).append(run)
    ordered = [Bucket(sig, sorted(members, key=lambda r: (r.tokens, r.bytes, r.path))) for sig, members in buckets.items()]
    return ordered, rest


def signature_oracle(text: str, signature: str, config: ReduceConfig) -> Oracle[str]:
    """The oracle of one bucket: FAIL only with ``signature``, checked on three runs of the original.

    Raises:
        NotReproducibleError: the input no longer fails with the signature, or not every time.
    """
    options = config.options
    inner, _ = calibrated_oracle(options, config.original(text))
    oracle = SignatureOracle(inner, signature, config.filename, options.strict)
    try:
        verdicts = original_runs(oracle, text, oracle.judge(text), config.jobs)
        if options.retries <= 1:
            require_reliable(verdicts, "input", f" against the signature {signature!r}")
    except BaseException:
        oracle.close()
        raise
    return RetryingOracle(oracle, options.retries) if options.retries > 1 else oracle


def reduce_bucket(
    job: BucketJob,
    *,
    on_progress: Callable[[ProgressEvent], None] | None = None,
    stop: StopRequest | None = None,
) -> BucketResult:
    """Reduce a bucket's smallest input against the bucket's signature, writing ``job.output`` as it shrinks.

    Never raises for a bucket that cannot be reduced (the input changed, the
    signature is flaky, the input does not parse): the result says why.
    ``stop`` interrupts it; the best so far is then verified and returned.
    """
    path = Path(job.path)
    config, text = _config_for(job.config, path)
    before = measure(text).tokens
    encode = config.encode or (lambda t: t.encode("utf-8"))

    def save(candidate: str) -> None:
        write_atomically(job.output, encode(candidate))

    started = time.monotonic()
    try:
        oracle = signature_oracle(text, job.signature, config)
    except AstReduceError as error:
        return BucketResult(job.signature, job.path, job.output, None, before, seconds=time.monotonic() - started, error=str(error))
    interrupted = False
    try:
        result: Result = reduce_with(text, config, oracle, on_improve=save, on_progress=on_progress, stop=stop)
    except ReductionStopped as stopped:
        result, interrupted = stopped.result, True
    except AstReduceError as error:
        return BucketResult(job.signature, job.path, job.output, None, before, seconds=time.monotonic() - started, error=str(error))
    save(result.text)
    return BucketResult(
        job.signature, job.path, job.output, result.text, before, result.output_size.tokens, result.tests,
        result.seconds, result.verified, interrupted,
    )


def output_names(jobs: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """A file name in the output folder for each (signature, input): the input's name, numbered on a clash."""
    names: dict[tuple[str, str], str] = {}
    taken: set[str] = set()
    for key in jobs:
        path = Path(key[1])
        name, number = path.name, 2
        while name in taken:
            name, number = f"{path.stem}-{number}{path.suffix}", number + 1
        taken.add(name)
        names[key] = name
    return names


def run_batch(
    inputs: list[str],
    config: ReduceConfig,
    outdir: Path,
    *,
    reduce_all: bool = False,
    map: Mapper | None = None,
    on_input: Callable[[InputRun], None] | None = None,
    on_buckets: Callable[[int], None] | None = None,
    on_bucket: Callable[[BucketJob], None] | None = None,
    on_result: Callable[[BucketResult], None] | None = None,
    on_progress: Callable[[ProgressEvent], None] | None = None,
    stop: StopRequest | None = None,
) -> BatchReport:
    """Run every input once, bucket them, and reduce each bucket's smallest input (every input with ``reduce_all``).

    ``map`` runs :func:`run_input` and :func:`reduce_bucket` over their
    records (default: here, one after another, with ``on_progress`` and
    ``stop``); ``on_input``, ``on_buckets`` (how many reductions there will
    be), ``on_bucket`` and ``on_result`` say how far it got. A ``stop`` request ends the batch after the current input or
    reduction; the report then says ``interrupted``.
    """
    started = time.monotonic()
    outdir = Path(outdir).resolve()  # here, not on a worker with another working directory
    local = map is None
    mapper: Mapper = map if map is not None else builtins.map
    runs: list[InputRun] = []
    report = BatchReport([], [])
    for run in mapper(functools.partial(run_input, config=config), inputs):
        runs.append(run)
        if on_input is not None:
            on_input(run)
        if stop is not None and stop.requested:
            report.interrupted = True
            break
    report.buckets, report.not_reproducing = group(runs)
    chosen = [(b.signature, m.path) for b in report.buckets for m in (b.members if reduce_all else b.members[:1])]
    names = output_names(chosen)
    jobs = [BucketJob(sig, path, str(outdir / names[(sig, path)]), config) for sig, path in chosen]
    by_signature = {b.signature: b for b in report.buckets}
    if on_buckets is not None:
        on_buckets(len(jobs))
    if not report.interrupted:
        work = functools.partial(reduce_bucket, on_progress=on_progress, stop=stop) if local else reduce_bucket
        for result in mapper(work, _announced(jobs, on_bucket, stop)):
            if not local and result.text is not None:
                # reduced elsewhere (a cluster's worker, maybe without this file system): saved here too
                write_atomically(result.output, read_source(result.path, CHECKED).encode(result.text))
            by_signature[result.signature].results.append(result)
            if on_result is not None:
                on_result(result)
            if result.interrupted or (stop is not None and stop.requested):
                report.interrupted = True
                break
    report.seconds = time.monotonic() - started
    return report


def _announced(jobs: list[BucketJob], on_bucket: Callable[[BucketJob], None] | None, stop: StopRequest | None) -> Iterator[BucketJob]:
    """The jobs, each announced as it is handed out; none after a stop request."""
    for job in jobs:
        if stop is not None and stop.requested:
            return
        if on_bucket is not None:
            on_bucket(job)
        yield job

