"""``astreduce compare FILE``: every strategy on one input and oracle, as a table, CSV, JSON and a plot."""

from __future__ import annotations

import importlib.util

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from astreduce.cli.common import GroupedCommand, ProgressDisplay, errors, say, stop_on_signals
from astreduce.cli.options import cluster_from, dask_option, oracle_options, options_from, quiet_option, resume_option
from astreduce.reduce.report import is_stdout
from astreduce.compare import (
    DEFAULT_STRATEGIES,
    PLOT_SUFFIXES,
    Budgets,
    ComparisonRow,
    ComparisonStopped,
    check_strategies,
    compare,
    comparison_dict,
    plot_comparison,
    print_table,
    render_table,
    write_csv,
)
from astreduce.errors import UsageError
from astreduce.reduce.report import write_json
from astreduce.writes import write_atomically
from astreduce.grammar import Grammar, GrammarSearch
from astreduce.grammar.search import check_data_oracle
from astreduce.source.measure import measure
from astreduce.oracles.options import Original, build_oracle, describe_judgement
from astreduce.reduce.report import exit_status
from astreduce.cli.inputs import max_input_option
from astreduce.files import check_output_path, read_source
from astreduce.file_checks import InputPolicy
from astreduce.search.session import StopRequest


@click.command("compare", cls=GroupedCommand)
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--strategy", "strategy_names", multiple=True, metavar="NAME", help=f"A strategy to compare (repeat it), in table order [default: {' '.join(DEFAULT_STRATEGIES)}].")
@click.option("--strategies", "old_strategy_names", hidden=True, metavar="NAME,...", help="The old name of --strategy: a comma-separated list.")
@click.option("--max-tests", type=int, metavar="N", help="Stop after N tests in all, each strategy with its best result so far, verified: the strategies share them (each may spend what is left over the strategies still to run).")
@click.option("--max-time", "max_seconds", type=float, metavar="SECONDS", help="Stop after SECONDS in all, shared by the strategies as --max-tests is.")
@click.option("--strategy-max-tests", type=int, metavar="N", help="Stop each strategy after N tests with its best result so far, verified.")
@click.option("--strategy-max-time", "strategy_max_seconds", type=float, metavar="SECONDS", help="Stop each strategy after SECONDS with its best result so far, verified.")
@oracle_options
@resume_option
@dask_option
@click.option("-o", "--output", "table_path", type=click.Path(dir_okay=False, path_type=Path), help="Write the table here too (Markdown with --markdown, else plain text).")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False, path_type=Path), help="Write the table as CSV here.")
@click.option("--report", "json_path", type=click.Path(dir_okay=False, path_type=Path), help="Write a JSON report here: the table, each strategy's curve, passes and result (- for standard output).")
@click.option("--json", "old_json_path", hidden=True, type=click.Path(dir_okay=False, path_type=Path), help="The old name of --report.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, path_type=Path), help="Plot tokens over tests to this .png, .svg or .pdf (needs matplotlib).")
@click.option("--grammar", "grammar_path", type=click.Path(dir_okay=False, path_type=Path), help="FILE is data: add a `grammar` row, reduced by its derivation tree under this Lark grammar (the default strategies become lines, chars, tokens).")
@click.option("--start", "start_rule", default="start", show_default=True, metavar="RULE", help="With --grammar: the rule the input derives from.")
@click.option("--log-x", is_flag=True, help="Log-scale x axis (tests) in the plot.")
@click.option("--markdown", is_flag=True, help="Print the table as Markdown.")
@quiet_option
@max_input_option
def compare_command(
    file: Path,
    strategy_names: tuple[str, ...],
    old_strategy_names: str | None,
    max_tests: int | None,
    max_seconds: float | None,
    strategy_max_tests: int | None,
    strategy_max_seconds: float | None,
    old_json_path: Path | None,
    table_path: Path | None,
    csv_path: Path | None,
    json_path: Path | None,
    plot_path: Path | None,
    grammar_path: Path | None,
    start_rule: str,
    log_x: bool,
    markdown: bool,
    quiet: bool,
    debug: bool,
    jobs: int,
    resume: bool,
    cache_dir: Path | None,
    dask_address: str | None,
    max_input_bytes: int,
    **oracle_values: Any,
) -> None:
    """Reduce FILE with every strategy and compare tests, time and final size.

    Every strategy starts from FILE with the same oracle (calibrated once)
    and its own outcome cache. Prints a table (Markdown with --markdown);
    --csv, --report and --plot save it, also after Ctrl-C (the strategies
    that finished, and the one that was stopped). Each row says how its
    strategy ended: finished, stopped by the budget, interrupted, skipped.
    Exits 1 when FILE does not reproduce or a result does not verify.
    """
    budgets = Budgets(max_tests, max_seconds, strategy_max_tests, strategy_max_seconds)  # the clock starts now
    with errors(debug):
        append_path = oracle_values.get("append_path")
        options = options_from(oracle_values)
        options.check()
        if jobs < 1:
            raise UsageError("-j must be at least 1")
        if old_strategy_names is not None:
            if strategy_names:
                raise UsageError("give --strategy (repeated), not also its old name --strategies")
            say("--strategies is an old name: name each strategy with --strategy NAME (repeat it)")
            strategy_names = (old_strategy_names,)
        if old_json_path is not None:
            if json_path is not None:
                raise UsageError("give --report, not also its old name --json")
            say("--json is an old name: use --report FILE")
            json_path = old_json_path
        if not strategy_names:  # the tree strategies read Python, not data
            strategy_names = ("lines", "tokens", "chars") if grammar_path is not None else DEFAULT_STRATEGIES
        strategies = [name.strip() for names in strategy_names for name in names.split(",") if name.strip()]
        check_strategies(strategies)
        budgets.check()
        if plot_path is not None and plot_path.suffix.lower() not in PLOT_SUFFIXES:
            raise UsageError(
                f"--plot {plot_path}: the file name must end in {', '.join(PLOT_SUFFIXES)}"
            )
        if plot_path is not None and importlib.util.find_spec("matplotlib") is None:  # before the strategies run, not after
            raise UsageError("--plot needs matplotlib: pip install 'astreduce[plot]'")
        for what, path in (("table", table_path), ("CSV file", csv_path), ("JSON file", json_path), ("plot", plot_path)):
            if path is not None and str(path) != "-":
                check_output_path(path, file, what=what)
        source = read_source(file, InputPolicy(max_bytes=max_input_bytes))
        search = None
        if grammar_path is not None:
            check_data_oracle(options)
            search = GrammarSearch(Grammar.load(grammar_path, start_rule), source.text, file.name)
        search_path = str(file.resolve().parent)
        cluster, jobs = cluster_from(dask_address, jobs)
        original = Original(source.text, file.name, search_path, source.encode)
        clustered = cluster.build_oracle(options, original) if cluster is not None else None
        oracle = clustered if clustered is not None else build_oracle(options, original)
        described = describe_judgement(
            oracle, options, Path(append_path).name if append_path else None
        )

        panel: list[ProgressDisplay] = []

        def started(strategy: str) -> ProgressDisplay:
            panel[:] = [ProgressDisplay(quiet, label=strategy)]
            return panel[0]

        def progress(row: ComparisonRow) -> None:
            for display in panel:
                display.stop()
            if quiet:
                return
            if row.is_skipped:
                click.echo(f"{row.strategy}: {row.note}", err=True)
            else:
                click.echo(
                    f"{row.strategy}: {row.tests:,} tests, {row.tokens:,} tokens, {row.seconds:.1f} s",
                    err=True,
                )

        stopped: ComparisonStopped | None = None
        stop = StopRequest()
        try:
            with stop_on_signals(stop):
                rows = compare(
                    source.text,
                    oracle,
                    strategies,
                    filename=file.name,
                    options=options,
                    jobs=jobs,
                    search_path=search_path,
                    encode=source.encode,
                    stop=stop,
                    on_row=progress,
                    search=search,
                    budgets=budgets,
                    on_strategy=started,
                    resume=resume,
                    cache_dir=cache_dir,
                )
        except ComparisonStopped as error:
            stopped, rows = error, error.rows
        finally:
            for display in panel:
                display.stop()
            oracle.close()
        workers = clustered.tests_by_worker if clustered is not None else {}
        if workers and not quiet:
            say(f"tests per worker: {', '.join(f'{name} {count}' for name, count in sorted(workers.items()))}")
        size = measure(source.text)
        title = f"{file.name} ({size.tokens:,} tokens)"
        style = "markdown" if markdown else "plain"
        if not is_stdout(json_path):
            print_table(rows, source.text, f"{title}, oracle: {described}", style)
        if table_path is not None:
            write_atomically(table_path, render_table(rows, source.text, style).encode("utf-8"))
        if csv_path is not None:
            write_csv(csv_path, rows)
        if json_path is not None:
            write_json(json_path, comparison_dict(rows, source.text, str(file), described), options)
        if plot_path is not None and rows:
            plot_comparison(
                rows,
                plot_path,
                title=f"Reducing {title}",
                subtitle=f"oracle: {described}",
                log_x=log_x,
            )
        ended = Compared(interrupted=stopped is not None, verified=all(row.verified is not False for row in rows))
        if ended.interrupted:
            say("interrupted; the table holds the strategies run so far")
        elif not ended.verified:
            say("a result did not reproduce when run again: the oracle may be flaky")
        if exit_status(ended):
            sys.exit(exit_status(ended))


@dataclass(frozen=True)
class Compared:
    """How a comparison ended, as :func:`~astreduce.reduce.report.exit_status` reads it."""

    interrupted: bool
    verified: bool
    """Every finished strategy's result reproduced when run again."""
