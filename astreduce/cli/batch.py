"""``astreduce batch FILE|DIR... -o OUTDIR``: one reduced reproducer per distinct failure."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import click

from astreduce.batch import BatchReport, BatchStop, BucketJob, BucketResult, InputRun, Mapper, run_batch
from astreduce.cli.common import GroupedCommand, errors, fail, say, stop_on_signals
from astreduce.cli.inputs import follow_symlinks_option, input_policy, max_input_option
from astreduce.cli.options import (
    budget_option, transforms_option, cluster_from, config_from, dask_option, oracle_options, quiet_option, resume_option,
)
from astreduce.errors import UsageError
from astreduce.files import check_output_dir, check_report_path, read_input
from astreduce.reduce.report import EXIT_INTERRUPTED, exit_status, is_stdout, write_json
from astreduce.reduce.single import ReduceConfig
from astreduce.search.session import ProgressEvent
from astreduce.search.strategies import STRATEGIES


class BatchProgress:
    """A rich display of the inputs run and the buckets reduced on a terminal; a line per step otherwise."""

    def __init__(self, inputs: int, quiet: bool) -> None:
        self.quiet = quiet
        self.progress: Any = None
        self.reducing: Any = None
        self.last_draw = 0.0
        if not quiet and sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self.progress = Progress(
                TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                console=Console(stderr=True),
            )
            self.progress.start()
            self.running = self.progress.add_task("running inputs", total=inputs)

    def input_done(self, run: InputRun) -> None:
        if self.progress is not None:
            self.progress.advance(self.running)
        elif not self.quiet:
            say(f"{run.path}: {run.signature if run.signature is not None else 'does not reproduce: ' + run.reason}")

    def bucket_started(self, job: BucketJob, buckets: int) -> None:
        if self.progress is not None:
            if self.reducing is None:
                self.reducing = self.progress.add_task("reducing buckets", total=buckets)
            self.progress.update(self.reducing, description=f"reducing {Path(job.path).name}")
        elif not self.quiet:
            say(f"reducing {job.path} ({job.signature})")

    def reduction(self, event: ProgressEvent) -> None:
        now = time.monotonic()
        if self.progress is not None and self.reducing is not None and now - self.last_draw >= 0.1:
            self.last_draw = now
            self.progress.update(
                self.reducing, description=f"{event.pass_name}: {event.best.tokens} of {event.original.tokens} tokens"
            )

    def result(self, result: BucketResult) -> None:
        if self.progress is not None and self.reducing is not None:
            self.progress.advance(self.reducing)

    def stop(self) -> None:
        if self.progress is not None:
            self.progress.stop()


@click.command("batch", cls=GroupedCommand)
@click.argument("inputs", metavar="FILE|DIR...", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False, path_type=Path), help="Directory for one reduced file per bucket (created; must be empty, and not inside an input directory).")
@click.option("--report", "report_path", type=click.Path(dir_okay=False, path_type=Path), help="Write the buckets (signature, files, reduced) and the inputs that do not reproduce here, as JSON.")
@click.option("--all", "reduce_all", is_flag=True, help="Reduce every input, not only the smallest of each bucket.")
@click.option("--strategy", type=click.Choice(STRATEGIES), default="auto", show_default=True, help="How each bucket is reduced.")
@transforms_option
@budget_option
@oracle_options
@click.option("--format/--no-format", "format_result", default=True, show_default=True, help="Format each result with black when that still reproduces.")
@dask_option
@resume_option
@quiet_option
@max_input_option
@follow_symlinks_option
def batch_command(inputs: tuple[Path, ...], **values: Any) -> None:
    """Bucket FILEs (and the .py files under each DIR) by how they fail, and reduce each bucket's smallest.

    Every input runs once under the oracle (the exec oracle unless --run,
    --test or --differential is given). Its failure signature is the
    exception's type, innermost function and message, or the fatal signal,
    or the exit status and last line of standard error, with numbers,
    addresses, temporary paths and the input's own name made neutral.
    Inputs with the same signature form a bucket; the smallest input of
    each bucket is reduced until nothing smaller fails with that very
    signature, into OUTDIR. Inputs that do not fail are listed in the
    report. Inputs are never written. Exit status: 0 when every bucket was
    reduced and verified, 1 when no input fails or a bucket could not be
    reduced, 2 for bad usage, 130 when interrupted (every finished bucket
    is kept, and the report written).
    """
    output, report_path, reduce_all, quiet, debug, dask_address = (
        values[name] for name in ("output", "report_path", "reduce_all", "quiet", "debug", "dask_address")
    )
    with errors(debug):
        reading = input_policy(values)
        config = config_from(values)
        given = read_input(list(inputs), reading)
        files = [str(given.root / p) for p in given.files if p in given.named or p.endswith(".py")]
        if not files:
            raise UsageError(f"{' '.join(map(str, inputs))}: no .py files to run")
        check_output_dir(output, given)
        if report_path is not None and not is_stdout(report_path):
            check_report_path(report_path, given)
        output.mkdir(exist_ok=True)
        cluster, _ = cluster_from(dask_address, config.jobs)  # whole files go to the workers; each reduction runs -j there
        report = _run_batch(files, config, output, reduce_all=reduce_all, quiet=quiet, map=cluster.map if cluster else None)
        if report_path is not None:
            write_json(report_path, report.to_json(), config.options)
        if not is_stdout(report_path):
            _print_summary(report)
        if report.interrupted:
            say(f"interrupted; every finished bucket is in {output}")
        elif not report.buckets:
            say(f"no input reproduces ({len(report.not_reproducing)} run); nothing reduced")
        if exit_status(report):
            sys.exit(exit_status(report))


def _run_batch(
    files: list[str], config: ReduceConfig, output: Path, *, reduce_all: bool, quiet: bool, map: Mapper | None = None
) -> BatchReport:
    """The batch under the signal handler and the progress display."""
    progress = BatchProgress(len(files), quiet)
    buckets: list[int] = [0]
    stop = BatchStop()

    def started(job: BucketJob) -> None:
        progress.bucket_started(job, buckets[0])

    try:
        with stop_on_signals(stop):
            try:
                return run_batch(
                    files, config, output, reduce_all=reduce_all, map=map, on_input=progress.input_done, on_bucket=started,
                    on_result=progress.result, on_progress=progress.reduction, stop=stop,
                    on_buckets=lambda count: buckets.__setitem__(0, count),
                )
            except KeyboardInterrupt:
                fail(f"interrupted; every finished bucket is in {output}", EXIT_INTERRUPTED)
    finally:
        progress.stop()


def _print_summary(report: BatchReport) -> None:
    """One line per bucket on stdout: its signature, its inputs, and what its reduction gave."""
    for bucket in report.buckets:
        click.echo(f"{bucket.signature}  ({len(bucket.members)} input{'s' if len(bucket.members) != 1 else ''})")
        for result in bucket.results:
            if result.text is None:
                click.echo(f"    {result.path}: not reduced: {result.error}")
                continue
            state = "" if result.verified else " (NOT verified)"
            state += ", interrupted" if result.interrupted else ""
            click.echo(
                f"    {result.path} -> {result.output}: {result.tokens_before} -> {result.tokens_after} tokens, "
                f"{result.tests} tests{state}"
            )
        for member in bucket.members[len(bucket.results):]:
            click.echo(f"    {member.path}")
    for run in report.not_reproducing:
        click.echo(f"does not reproduce: {run.path}: {run.reason}")
