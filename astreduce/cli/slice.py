"""``astreduce slice PROGRAM``: the critical slice of a run, the executions that cause its outcome."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from astreduce.cli.common import GroupedCommand, errors, exit_after, run_reduction, say
from astreduce.cli.options import budget_option, options_from, quiet_option, resume_option, some_oracle_options, with_confinement_options
from astreduce.oracles.options import said_of_test
from astreduce.search.session import Budget
from astreduce.writes import write_atomically
from astreduce.oracles import Verdict
from astreduce.reduce.report import is_stdout, write_json
from astreduce.cli.inputs import max_input_option
from astreduce.files import check_output_path
from astreduce.file_checks import InputPolicy, check_input_file
from astreduce.slicing import SliceResult, slice_run
from astreduce.slicing.listing import render_listing
from astreduce.slicing.plot import check_plot_path, plot_slice

#: The oracle options of ``reduce`` that a slice takes, with help texts for a slice.
_OPTIONS = ("expect", "match", "stdout_pattern", "stderr_pattern", "exit_code", "append_path", "python", "timeout", "jobs", "verbose")
_HELPS = {
    "expect": "The run must raise this exception [default: the one the program raises, or none].",
    "stdout_pattern": "The run's standard output must match REGEX (searched) [default without --expect, --stdout, --stderr, --exit-code: the whole output stays the same].",
    "stderr_pattern": "The run's standard error must match REGEX (searched).",
    "exit_code": "The run must exit with this status.",
    "append_path": "A script run after the program in every run; its statements are not events.",
    "python": "Interpreter that runs the program (3.8 or newer; e.g. 3.12: pyenv's).",
    "timeout": "Seconds per test [default: 10x the recorded run's time, at least 2].",
}


@some_oracle_options(_OPTIONS, _HELPS)
@with_confinement_options
@click.command("slice", cls=GroupedCommand)
@click.argument("program", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--input", "stdin_path", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE", help="The program's standard input in every run (a file; --stdin is the flag of reduce, batch, compare and isolate that feeds the candidate on standard input).")
@click.option("--include", "include", metavar="MODULE", multiple=True, help="The statements of this module are events too (repeat for more).")
@click.option("-o", "--output", "listing_path", type=click.Path(dir_okay=False, path_type=Path), help="Write the marked listing here too.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False, path_type=Path), help="Write a JSON report here (events as [line, occurrence], tests, trace_length).")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, path_type=Path), help="Draw the search as the paper's Figure 5 (png, svg, pdf; needs the plot extra).")
@budget_option
@resume_option
@quiet_option
@max_input_option
def slice_command(
    program: Path,
    stdin_path: Path | None,
    include: tuple[str, ...],
    listing_path: Path | None,
    report_path: Path | None,
    plot_path: Path | None,
    quiet: bool,
    debug: bool,
    jobs: int,
    max_tests: int | None,
    max_seconds: float | None,
    resume: bool,
    cache_dir: Path | None,
    max_input_bytes: int,
    **values: Any,
) -> None:
    """Find the critical slice of a run of PROGRAM (STRIPE, Cleve & Zeller 2000).

    One traced run records the executions of PROGRAM's statements; delta
    debugging then skips executions (all of a line's first, then single
    ones) until every one left is needed to reproduce the outcome: the
    exception given by --expect, output matching --stdout/--stderr, the
    --exit-code, or without these the whole output. Prints PROGRAM with the
    kept executions beside each line (6₂ = the second execution of line 6).
    Headers of compound statements (if, while, for, try, with, def, class)
    are never skipped: they keep the run's control flow.
    """
    with errors(debug):
        if program.exists():  # a missing one is the slice's to say
            check_input_file(program, InputPolicy(max_bytes=max_input_bytes))
        options = options_from(values)
        for target, what in ((listing_path, "listing"), (report_path, "report"), (plot_path, "plot")):
            if target is not None and not is_stdout(target):
                check_output_path(target, program, what=what)
        if plot_path is not None:
            check_plot_path(plot_path)
        Budget.check(max_tests, max_seconds)
        lines = options.verbose

        def echo(number: int, verdict: Verdict) -> None:
            click.echo(said_of_test(number, verdict, lines), err=True)

        result, interrupted = run_reduction(
            lambda stop, progress: slice_run(
                program, options, stdin=stdin_path, include=include, jobs=jobs, stop=stop,
                budget=Budget.of(max_tests, max_seconds),
                resume=resume, cache_dir=cache_dir, on_test=echo if lines else None,
            ),
            quiet=True,  # no live display: the summary comes at the end
            target="the report",
            has_saved=lambda: False,
            what="slice",
        )
        if report_path is not None:
            write_json(report_path, result.report(), options)
        if plot_path is not None:
            plot_slice(result, plot_path)
        if not quiet:
            _say_slice(result)
        if listing_path is not None:
            write_atomically(listing_path, render_listing(result).encode("utf-8"))
        if not is_stdout(report_path):
            click.echo(render_listing(result), nl=False)
        if not result.verified and not interrupted:
            say("the slice did not reproduce on a second run (a flaky program?)")
        if result.budget_ended and not quiet:
            say("--max-tests or --max-time ended the search: the smallest reproducing set so far, not 1-minimal")
        exit_after(result, "the listing above")


def _say_slice(result: SliceResult) -> None:
    levels = ", ".join(f"{v.name}: {v.kept} of {v.elements} kept in {v.tests} tests" for v in result.levels)
    say(f"slice for {result.criterion}: {len(result.kept)} of {len(result.trace)} events" + (f" ({levels})" if levels else ""))
    resumed = f", {result.resumed} answered from an earlier run's cache (--resume)" if result.resumed else ""
    say(f"{result.tests} tests ({result.cache_hits} cached{resumed}), {result.seconds:.1f} s")
