"""``astreduce reduce FILE`` and ``astreduce reduce DIR|FILE FILE ...``: the reduce command."""

from __future__ import annotations

import filecmp
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import click

from astreduce.cli.common import GroupedCommand, errors, exit_after, run_written, say
from astreduce.cli.inputs import follow_symlinks_option, input_policy, max_input_option
from astreduce.cli.options import (
    budget_option, cluster_from, config_from, coverage_first_option, dask_option, oracle_options, provenance_option, quiet_option, resume_option,
    transforms_option,
)
from astreduce.errors import UsageError
from astreduce.files import (
    check_output_dir,
    check_output_path,
    check_report_path,
    default_output,
    default_output_dir,
    read_input,
    read_source,
)
from astreduce.writes import LatestWriter, TreeWriter, write_atomically
from astreduce.file_checks import InputPolicy
from astreduce.interpreters import resolve_python
from astreduce.oracles.options import OracleOptions
from astreduce.reduce.bug_report import Reproduction, bug_report, for_file, for_tree, relative, reproduce
from astreduce.grammar import Grammar, GrammarSearch
from astreduce.grammar.search import check_data_oracle
from astreduce.oracles.options import REDUCING, describe_options
from astreduce.source.measure import measure
from astreduce.reduce.report import is_stdout, write_json, write_report
from astreduce.reduce.single import ReduceConfig, Result, reduce_with
from astreduce.reduce.tree import reduce_tree_with
from astreduce.files import resolve_entry
from astreduce.reduce.tree_result import TreeResult, TreeSizes
from astreduce.search.strategies import STRATEGIES


@click.command("reduce", cls=GroupedCommand)
@click.argument("inputs", metavar="FILE|DIR...", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("-o", "--output", type=click.Path(path_type=Path), help="Where to write the result [default: FILE with .reduced before its suffix, e.g. prog.reduced.py; for a directory DIR.reduced, for several files FIRST.reduced: a directory, which must not exist or be empty]. Without -o, or with -o - (the default file too), the result is also printed on standard output, unless -q.")
@click.option("--in-place", is_flag=True, help="Overwrite FILE with the result, keeping FILE.orig as a backup.")
@click.option("--strategy", type=click.Choice(STRATEGIES), default="auto", show_default=True, help="How to search (for a directory: how each file is reduced).")
@transforms_option
@budget_option
@coverage_first_option
@click.option("--entry", metavar="FILE", help="A directory or several files: the file that runs as __main__, with the copy's folder first on sys.path (the exec oracle), and {file} in --run [default for several files: the first one].")
@oracle_options
@dask_option
@click.option("--format/--no-format", "format_result", default=True, show_default=True, help="Format the result with black when that still reproduces.")
@click.option("--exhaustive", is_flag=True, help="In every round of the auto strategy, retry one by one every edit that failed before, not only those whose surroundings changed: 1-minimal in every round, about twice the tests on large inputs.")
@click.option("--grammar", "grammar_path", type=click.Path(dir_okay=False, path_type=Path), help="FILE is data, not Python: reduce it by its derivation tree under this Lark grammar (Earley), with --run, --test or --differential as the oracle.")
@click.option("--start", "start_rule", default="start", show_default=True, metavar="RULE", help="With --grammar: the rule the input derives from.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False, path_type=Path), help="Write a JSON report here.")
@provenance_option
@resume_option
@quiet_option
@max_input_option
@follow_symlinks_option
def reduce_command(inputs: tuple[Path, ...], entry: str | None, **values: Any) -> None:
    """Reduce FILE to a smallest program that still fails the same way.

    The oracle is the exec oracle (the candidate runs as __main__ and must
    raise the same exception) unless --run, --test or --differential is given.

    A directory, or several files, is reduced as one tree, and the result is
    a directory: whole files are deleted, modules merged into their only
    importer, and every file reduced while the others stay fixed, until
    nothing changes. Each test runs in a fresh copy of the whole tree, its
    working directory. --entry FILE runs FILE there as __main__ (the exec
    oracle); --run CMD gets {dir} (the copy) and {file} (the entry file, else
    the copy); --test SCRIPT gets the copy's folder as its argument.
    """
    output, in_place, report_path, quiet, debug, grammar_path, start_rule, dask_address, bug_path = (
        values[name]
        for name in (
            "output", "in_place", "report_path", "quiet", "debug", "grammar_path", "start_rule", "dask_address", "bug_report_path",
        )
    )
    append_path = values.get("append_path")
    with errors(debug):
        if is_stdout(output):
            if is_stdout(report_path):
                raise UsageError("-o - and --report - both name standard output; write one of them to a file")
            output = None  # the default output file, and standard output
        shown = not quiet and output is None and not in_place and not is_stdout(report_path)
        reading = input_policy(values)
        config = config_from(values, exhaustive=values["exhaustive"])
        if len(inputs) == 1 and not inputs[0].is_dir():
            if entry is not None:
                raise UsageError("--entry goes with a directory or several files, not with one file")
            grammar = None if grammar_path is None else GrammarInput(grammar_path, start_rule)
            _reduce_file(
                inputs[0], config, output=output, in_place=in_place, report_path=report_path, quiet=quiet,
                grammar=grammar, dask_address=dask_address, bug_path=bug_path, append_path=append_path,
                reading=reading, shown=shown,
            )
        else:
            if grammar_path is not None:
                raise UsageError("--grammar reduces one input file, not a directory or several files")
            _reduce_tree(
                list(inputs), entry, config, output=output, in_place=in_place, report_path=report_path, quiet=quiet,
                dask_address=dask_address, bug_path=bug_path, reading=reading, shown=shown,
            )


@dataclass(frozen=True)
class GrammarInput:
    """``--grammar G.lark --start RULE``: the input is data, reduced by its derivation tree."""

    path: Path
    start: str

    def search(self, config: ReduceConfig, text: str, filename: str) -> GrammarSearch:
        """The grammar search over ``text``; checks the oracle, the grammar and the input first."""
        check_data_oracle(config.options)
        return GrammarSearch(Grammar.load(self.path, self.start), text, filename)


def _reduce_file(
    file: Path,
    config: ReduceConfig,
    *,
    output: Path | None,
    in_place: bool,
    report_path: Path | None,
    quiet: bool,
    grammar: GrammarInput | None = None,
    dask_address: str | None = None,
    bug_path: Path | None = None,
    append_path: str | None = None,
    reading: InputPolicy = InputPolicy(),
    shown: bool = False,
) -> None:
    """``astreduce reduce FILE`` (``--grammar``: FILE is data, reduced by its derivation tree); ``shown``: the result
    also goes to standard output."""
    if in_place and output is not None:
        raise UsageError("give either --in-place or -o, not both")
    source = read_source(file, reading)
    target = file if in_place else (output or default_output(file))
    check_output_path(target, None if in_place else file)
    if report_path is not None and not is_stdout(report_path):
        check_output_path(report_path, file, what="report")
    if bug_path is not None:
        check_output_path(bug_path, file, what="bug report")
    backup = file.with_name(file.name + ".orig")
    if in_place and backup.exists() and not filecmp.cmp(file, backup, shallow=False):
        raise UsageError(
            f"{backup} exists (a backup from an earlier --in-place run?) and differs from {file}; "
            "move it away first, or write elsewhere with -o"
        )
    cluster, jobs = cluster_from(dask_address, config.jobs)
    config = replace(
        config, filename=file.name, search_path=str(file.resolve().parent), encode=source.encode, cluster=cluster, jobs=jobs
    )
    search = None
    if grammar is not None:
        search = grammar.search(config, source.text, file.name)
        config = replace(config, format=False)  # black would rewrite data
    saved: list[str] = []
    writer = LatestWriter(target)

    def save(text: str) -> None:
        if in_place and not saved:  # the first write replaces the input: back it up first
            shutil.copy2(file, backup)
        writer.put(source.encode(text))
        saved.append(target.name)

    size = measure(source.text)

    def first_line(note: str) -> None:  # once the original has run: an error before it stays one line
        say(f"{file}: {size.tokens} tokens, {size.lines} non-blank lines; {describe_options(config.options)}; {note}")

    result, interrupted = run_written(
        lambda stop, progress: reduce_with(
            source.text, config, on_improve=save, on_progress=progress, stop=stop, search=search,
            on_note=None if quiet else first_line, echo=say,
        ),
        writer, lambda done: save(done.text), saved=lambda: bool(saved), quiet=quiet, target=target, what="program",
    )
    if report_path is not None:
        write_report(report_path, result, str(file), str(target), config.options)
    if bug_path is not None and result.verified and grammar is None:
        python = resolve_python(config.options.python)
        append = (append_path, config.options.append) if append_path and config.options.append else None
        reproduction = for_file(
            config.options, target, input_name=file.name, python=python, search_path=config.search_path, text=result.text,
            append=append,
        )
        _write_bug_report(
            bug_path, result, reproduction, config.options, python, files={config.filename: result.text},
            names={config.filename: relative(target)}, original=str(file), quiet=quiet,
            appended=(Path(append_path).name, config.options.append) if append_path and config.options.append else None,
        )
    _print_result(result, file, target, quiet, show=shown)
    exit_after(result, target)


def _write_bug_report(
    path: Path, result: Result | TreeResult, reproduction: Reproduction, options: OracleOptions, python: str, *,
    files: dict[str, str], names: dict[str, str], original: str, quiet: bool, appended: tuple[str, str] | None = None,
) -> None:
    """Run the result once more as the report shows it, and write the report (``--bug-report``)."""
    ran = reproduce(reproduction, options.limits())
    before, after = result.input_size, result.output_size
    sizes = f"{before.tokens} → {after.tokens} tokens, {before.lines} → {after.lines} non-blank lines, {result.tests} tests, {result.seconds:.1f} s"
    title = _title(result)
    text = bug_report(
        title=title, files=files, provenance=result.provenance, reproduction=reproduction, ran=ran, python=python,
        names=names, original=original, sizes=sizes, appended=appended,
    )
    write_atomically(path, text.encode("utf-8"))
    if not quiet:
        say(f"bug report written to {path}")


def _title(result: Result | TreeResult) -> str:
    """The bug report's title: what fails, and where."""
    what = result.target or "The failure"
    provenance = result.provenance
    place = provenance.raised_from if provenance is not None else None
    if place is None or place.pinned:
        return f"{what}, reduced"
    where = f"`{place.function}` in `{place.file}`" if place.function else f"`{place.file}`"
    return f"{what} in {where}, reduced"


def _reduce_tree(
    inputs: list[Path],
    entry: str | None,
    config: ReduceConfig,
    *,
    output: Path | None,
    in_place: bool,
    report_path: Path | None,
    quiet: bool,
    dask_address: str | None = None,
    bug_path: Path | None = None,
    reading: InputPolicy = InputPolicy(),
    shown: bool = False,
) -> None:
    """``astreduce reduce DIR`` and ``astreduce reduce FILE FILE ...``: the result is a directory (``shown``: its files
    also go to standard output)."""
    if in_place:
        raise UsageError("--in-place is for a single file; a directory's result goes to a new directory (-o OUTDIR)")
    given = read_input(inputs, reading)
    target = output or default_output_dir(inputs)
    check_output_dir(target, given)
    if report_path is not None and not is_stdout(report_path):
        check_report_path(report_path, given)
    if bug_path is not None:
        check_report_path(bug_path, given)
    entry_path = resolve_entry(entry, given)
    config.options.check_tree(entry_path, REDUCING)
    cluster, jobs = cluster_from(dask_address, config.jobs)
    config = replace(config, cluster=cluster, jobs=jobs)
    saved: list[int] = []

    writer = LatestWriter(target, TreeWriter(target, given.modes))

    def save(tree: dict[str, str]) -> None:
        writer.put(tree)
        saved.append(len(tree))

    label = " ".join(str(p) for p in inputs)
    size = TreeSizes().tree(given.files)

    def first_line(note: str) -> None:  # once the original has run: an error before it stays one line
        say(f"{label}: {size.files} files, {size.tokens} tokens; {describe_options(config.options)}; {note}")

    result, interrupted = run_written(
        lambda stop, progress: reduce_tree_with(
            given.files, config, entry=entry_path, modes=given.modes, on_improve=save, on_progress=progress, stop=stop,
            on_note=None if quiet else first_line,
        ),
        writer, lambda done: save(done.tree), saved=lambda: bool(saved), quiet=quiet, target=target, what="tree",
    )
    if report_path is not None:
        write_json(report_path, result.report(label, str(target)), config.options)
    if bug_path is not None and result.verified:
        python = resolve_python(config.options.python)
        reproduction = for_tree(config.options, target, result.tree, entry=entry_path, python=python)
        _write_bug_report(
            bug_path, result, reproduction, config.options, python, files=result.tree,
            names={p: f"{relative(target)}/{p}" for p in result.tree}, original=label, quiet=quiet,
        )
    _print_tree_result(result, label, target, quiet, show=shown)
    exit_after(result, target)


def _print_tree_result(result: TreeResult, label: str, target: Path, quiet: bool, show: bool) -> None:
    """The figures on stderr; with ``show``, every file of the result on stdout, each under a header."""
    files = f"{result.input_size.files} -> {result.output_size.files} files, "
    _print_figures(result, label, target, quiet, files)
    for path in sorted(result.tree) if show else ():
        text = result.tree[path]
        click.echo(f"==> {path} <==")
        click.echo(text, nl=not text.endswith("\n"))


def _print_result(result: Result, file: Path, target: Path, quiet: bool, show: bool) -> None:
    """The figures on stderr; with ``show`` (no -o, no -q, no report on standard output), the result on stdout."""
    _print_figures(result, str(file), target, quiet)
    if show:
        click.echo(result.text, nl=not result.text.endswith("\n"))


def _print_figures(result: Result | TreeResult, label: str, target: Path, quiet: bool, files: str = "") -> None:
    """The result's notes, then (unless ``quiet``) one line: sizes before and after, tests, seconds."""
    before, after = result.input_size, result.output_size
    ratio = after.tokens / before.tokens if before.tokens else 1.0
    for note in result.notes:
        say(note)
    if not quiet:
        state = "verified" if result.verified else "NOT verified"
        ended = ", the budget ended the run" if result.budget_ended else ""
        provenance = getattr(result, "provenance", None)
        place = provenance.summary(str(target), tree=isinstance(result, TreeResult)) if provenance is not None else ""
        click.echo(
            f"{label} -> {target}: {files}{before.tokens} -> {after.tokens} tokens ({ratio:.1%}), "
            f"{before.lines} -> {after.lines} non-blank lines, {result.tests} tests, {result.seconds:.1f} s ({state}{ended})"
            + (f"; still {result.target}" if result.target else "") + (f"; {place}" if place else ""),
            err=True,
        )
    workers = getattr(result, "workers", None)
    if workers and not quiet:
        click.echo(f"tests per worker: {', '.join(f'{name} {count}' for name, count in workers.items())}", err=True)
