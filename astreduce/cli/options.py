"""The oracle options every command that runs candidates shares (reduce, compare, isolate)."""

from __future__ import annotations

import copy
import importlib.metadata
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from astreduce.cli.common import ORACLE_SECTION, add_to_section
from astreduce.errors import UsageError
from astreduce.oracles import read_append
from astreduce.run import confine
from astreduce.oracles.options import OracleKind, OracleOptions, register_oracle_kind
from astreduce.reduce.single import ReduceConfig
from astreduce.search.cluster import Cluster, connect

F = TypeVar("F", bound=Callable[..., Any])

MATCH_HELP = "How the exception must match: type, message (type and message), first-line (type and the message's first line), or regex:PATTERN on the message."

#: What a candidate may do beyond its own test folder (every command that runs candidates has them).
CONFINEMENT_OPTIONS: list[Callable[[Any], Any]] = [
    click.option("--allow-write", "allow_write", multiple=True, type=click.Path(), metavar="PATH", help="Let candidates also write beneath PATH (repeat for several); otherwise they write only in their own test folder."),
    click.option("--allow-network", is_flag=True, help="Let candidates bind and connect TCP sockets."),
    click.option("--confine/--no-confine", default=True, show_default=True, help="Run every candidate confined (Landlock): it writes only in its own test folder, opens no TCP connection, signals no process outside its test."),
]

_OPTIONS: list[Callable[[Any], Any]] = [
    click.option("--expect", metavar="EXC[:MESSAGE]", help="Exec oracle: the target exception; default: whatever the input raises."),
    click.option("--match", default="message", show_default=True, help=MATCH_HELP),
    click.option("--anywhere", is_flag=True, help="Let a candidate fail anywhere; by default its failure must happen at the original's place: its raising line must come from the same function of the same file."),
    click.option("--same-frame", is_flag=True, hidden=True, help="The same place (the default); kept for older command lines."),
    click.option("--allow-syntax-errors", is_flag=True, help="Let a candidate that does not parse be interesting; by default it is not, when the input parses."),
    click.option("--append", "append_path", type=click.Path(dir_okay=False), help="Exec oracle: a test script appended to every candidate; only the input is reduced."),
    click.option("--run", "run_command", metavar="'CMD {file}'", help="Command oracle: run CMD on each candidate ({file}: its path, {python}: the --python interpreter)."),
    click.option("--stdin", "use_stdin", is_flag=True, help="With --run: feed the candidate on standard input."),
    click.option("--signal", "signal_name", metavar="NAME", help="With --run: interesting iff killed by this signal (SEGV, ABRT, ... or any)."),
    click.option("--exit-code", type=int, help="With --run: interesting iff the command exits with this status."),
    click.option("--stderr", "stderr_pattern", metavar="REGEX", help="With --run: interesting iff standard error matches REGEX."),
    click.option("--stdout", "stdout_pattern", metavar="REGEX", help="With --run: interesting iff standard output matches REGEX."),
    click.option("--hang", type=float, metavar="SECONDS", help="With --run: interesting iff the command runs longer than SECONDS."),
    click.option("--test", "test_script", type=click.Path(dir_okay=False), help="Interestingness script (C-Reduce convention): exit 0 = interesting; runs in a folder holding the candidate under the input's name, which is also its first argument."),
    click.option("--differential", nargs=2, metavar="'CMD1 {file}' 'CMD2 {file}'", help="Interesting iff the two commands differ in standard output or exit status."),
    click.option("--python", "python", metavar="PATH|VERSION", help="Interpreter for the exec oracle and {python} (e.g. 3.12: pyenv's); its parser reads the input."),
    click.option("--timeout", type=float, help="Seconds per test [default: 10x the input's run time, at least 2]."),
    click.option("--retries", type=int, default=1, show_default=True, help="Accept a candidate only after it reproduces this many times (for flaky oracles)."),
    click.option("-j", "--jobs", type=int, default=os.cpu_count() or 1, show_default=True, help="Candidates tested at once; the result is the same for every value."),
    click.option("-v", "--verbose", "verbose", type=int, is_flag=False, flag_value=5, default=0, metavar="[LINES]", help="After each test, say how it ended and show the last LINES lines it printed [LINES: 5]."),
    *CONFINEMENT_OPTIONS,
]


#: The entry point group of oracles from other packages. Each entry names an object with ``kind``, an
#: :class:`~astreduce.oracles.options.OracleKind`, and ``options``, its click options, which every command
#: that takes oracle options gets; their values reach the oracle in ``OracleOptions.extra``.
ORACLE_ENTRY_POINT_GROUP = "astreduce.oracles"

#: The parameter names of the option groups of registered oracle kinds (their values go to ``extra``).
_PLUGGED_NAMES: list[str] = []


def add_oracle_option_group(kind: OracleKind, options: Sequence[Callable[[Any], Any]]) -> None:
    """Register an oracle kind and its options; commands defined from here on take them."""
    register_oracle_kind(kind)
    _OPTIONS.extend(options)
    names = [p.name or "" for p in click.command()(_with_options(options, lambda **_: None)).params]
    _PLUGGED_NAMES.extend(names)
    add_to_section(ORACLE_SECTION, names)


def _load_oracle_plugins() -> None:
    """Register the oracles of :data:`ORACLE_ENTRY_POINT_GROUP`; one that fails to load is a warning line."""
    for entry in importlib.metadata.entry_points(group=ORACLE_ENTRY_POINT_GROUP):
        try:
            plugin = entry.load()
            add_oracle_option_group(plugin.kind, plugin.options)
        except Exception as error:  # a plugin may fail in any way: name it and go on without it
            click.echo(f"astreduce: warning: oracle {entry.name!r} ({entry.value}) failed to load: {error}", err=True)


def _with_options(options: Sequence[Callable[[Any], Any]], command: F) -> F:
    for option in reversed(options):
        command = option(command)
    return command


def oracle_options(command: F) -> F:
    """Add the oracle options to a click command."""
    return _with_options(_OPTIONS, command)


def options_from(values: dict[str, Any]) -> OracleOptions:
    """The oracle options of a command's keyword arguments, read by name, once (nothing is taken out of them);
    an option the command does not have (``slice`` has no ``--run``) keeps its default."""
    differential = values.get("differential") or None
    anywhere = values.get("anywhere", False)
    if values.get("same_frame", False) and anywhere:
        raise UsageError("--same-frame asks for the same place, the default, and --anywhere turns it off: give one or neither")
    return OracleOptions(
        anywhere=anywhere,
        allow_syntax_errors=values.get("allow_syntax_errors", False),
        expect=values["expect"],
        match=values["match"],
        append=read_append(values["append_path"]),
        timeout=values["timeout"],
        python=values["python"],
        run=values.get("run_command"),
        stdin=values.get("use_stdin", False),
        signal=values.get("signal_name"),
        exit_code=values["exit_code"],
        stderr=values["stderr_pattern"],
        stdout=values["stdout_pattern"],
        hang=values.get("hang"),
        test=_here(values.get("test_script")),
        differential=tuple(differential) if differential else None,
        retries=values.get("retries", 1),
        verbose=values.get("verbose", 0) or 0,
        extra={name: values[name] for name in _PLUGGED_NAMES if name in values},
        **confinement_from(values),
    )


def with_confinement_options(command: F) -> F:
    """Add ``--allow-write``, ``--allow-network`` and ``--confine/--no-confine`` to a click command."""
    for option in reversed(CONFINEMENT_OPTIONS):
        command = option(command)
    return command


def confinement_from(values: dict[str, Any]) -> dict[str, Any]:
    """The with_confinement_options options of a command's keyword arguments, as :class:`OracleOptions` keywords
    (paths made absolute here, before anything runs elsewhere); warn once when this system cannot confine."""
    confined = values["confine"]
    if confined:
        warning = unconfined_warning(confine.abi())  # type: ignore[no-untyped-call]  # free of annotations
        if warning:
            click.echo(f"astreduce: warning: {warning}", err=True)
    return {
        "confine": confined,
        "allow_write": tuple(os.path.abspath(p) for p in values["allow_write"]),
        "allow_network": values["allow_network"],
    }


def unconfined_warning(abi: int) -> str:
    """What a kernel with Landlock ABI ``abi`` leaves unconfined ('' when nothing)."""
    if abi == 0:
        return "candidates run unconfined, as you: this system has no Landlock (Linux 5.13 or later); see --no-confine in the README"
    if abi < 6:  # the network is closed all the same: a network namespace, or the socket filter (docs/sandbox.md)
        return f"candidates may signal other processes: this kernel's Landlock (ABI {abi}) scopes signals from Linux 6.12 (ABI 6) on"
    return ""


def _here(path: str | None) -> str | None:
    """An existing file's path made absolute here, so that a cluster's worker finds the same file."""
    return os.path.abspath(path) if path and os.path.isfile(path) else path


def some_oracle_options(names: tuple[str, ...], helps: dict[str, str]) -> Callable[[click.Command], click.Command]:
    """Add some of the oracle options (by parameter name) to a click command, with other help
    texts where the command means them differently (``astreduce slice``: no ``--run``)."""
    declared = {p.name: p for p in click.command()(oracle_options(lambda **_: None)).params}

    def add(command: click.Command) -> click.Command:
        for name in names:
            option = copy.copy(declared[name])
            if name in helps:
                option.help = helps[name]
            command.params.append(option)
        return command

    return add
#: ``--dask ADDRESS``, for the commands whose tests can run on a Dask cluster (reduce, compare).
dask_option = click.option(
    "--dask",
    "dask_address",
    metavar="ADDRESS",
    help="Run the tests on the workers of the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786); "
    "-j defaults to the workers' threads. The result is the same as a local run.",
)


def cluster_from(address: str | None, jobs: int) -> tuple[Cluster | None, int]:
    """The cluster ``--dask`` names (None without it), disconnected when the command ends,
    and the jobs to run at once: ``-j`` when given on the command line, else, with a
    cluster, its workers' threads."""
    if address is None:
        return None, jobs
    cluster = connect(address)
    context = click.get_current_context()
    context.call_on_close(cluster.close)  # when the command ends, however it ends
    given = context.get_parameter_source("jobs") is click.core.ParameterSource.COMMANDLINE
    return cluster, jobs if given else cluster.threads


def transforms_from(values: dict[str, Any]) -> tuple[str, ...] | None:
    """``--transforms NAME,...`` (or ``-NAME,...``: all but those) and ``--keep-names`` of a command's
    keyword arguments (``None``: every transform)."""
    names = values["transform_names"]
    chosen = tuple(n.strip() for n in names.split(",") if n.strip()) if names else None
    if not values.get("keep_names", False):
        return chosen
    if chosen is None or all(n.startswith("-") for n in chosen):
        return (*(chosen or ()), "-rename")
    return tuple(n for n in chosen if n != "rename")


#: ``--transforms`` and ``--keep-names``, for every command that reduces.
transforms_options = [
    click.option("--transforms", "transform_names", metavar="NAME,...", help="Only these transforms, or with -NAME,... all but those (see `astreduce transforms`)."),
    click.option("--keep-names", is_flag=True, help="Keep every name as it is (the same as --transforms -rename)."),
    click.option("--keep", metavar="REGEX", help="Never delete or rewrite a line REGEX finds (as a line marked with a `# astreduce: keep` comment)."),
]


#: ``--max-tests`` and ``--max-time``: a budget for the whole reduction.
budget_options = [
    click.option("--max-tests", type=int, metavar="N", help="Stop after N tests with the best result so far, verified (exit 0; the report says the budget ended the run)."),
    click.option("--max-time", "max_seconds", type=float, metavar="SECONDS", help="Stop after SECONDS (from the start) with the best result so far, verified (exit 0)."),
]


#: ``--annotate`` and ``--bug-report``: what a result says of where it came from.
provenance_options = [
    click.option("--annotate", is_flag=True, help="End each line of the result with a `# from FILE:LINE` comment naming where it came from (where a comment changes nothing)."),
    click.option("--bug-report", "bug_report_path", type=click.Path(dir_okay=False, path_type=Path), help="Write a Markdown bug report here: the command that shows the failure, the result, the failure as it prints, each line's origin, the Python and third-party versions."),
]


def provenance_option(command: F) -> F:
    """Add ``--annotate`` and ``--bug-report`` to a click command."""
    for option in reversed(provenance_options):
        command = option(command)
    return command


#: ``--resume`` and ``--cache-dir``: a persistent cache of outcomes, wherever a search runs.
resume_options = [
    click.option("--resume", is_flag=True, help="Keep outcomes in a persistent cache, so that a rerun after an interruption continues where it stopped."),
    click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), help="Folder of the persistent cache [default: ~/.cache/astreduce]."),
]


def quiet_option(command: F) -> F:
    """Add ``-q/--quiet`` and ``--debug`` to a click command: how much it says on standard error."""
    command = click.option("--debug", is_flag=True, help="Show tracebacks of astreduce's own errors.")(command)
    return click.option(
        "-q", "--quiet", is_flag=True, help="Quiet: no progress and no summary on stderr (errors and warnings only)."
    )(command)


def resume_option(command: F) -> F:
    """Add ``--resume`` and ``--cache-dir`` to a click command (read by :func:`config_from`)."""
    for option in reversed(resume_options):
        command = option(command)
    return command


def budget_option(command: F) -> F:
    """Add ``--max-tests`` and ``--max-time`` to a click command."""
    for option in reversed(budget_options):
        command = option(command)
    return command


#: ``--coverage-first``: for a tree, what the original never runs is tried first (``reduce`` with a directory, ``pytest``).
coverage_first_option = click.option(
    "--coverage-first/--no-coverage-first", "coverage_first", default=None,
    help="A tree: run the original once with coverage, then try first to delete the files it never imports and, "
    "file by file, the functions, classes and statements it never executes [default: for a tree of 20 Python files or more].",
)


def transforms_option(command: F) -> F:
    """Add ``--transforms`` and ``--keep-names`` to a click command."""
    for option in reversed(transforms_options):
        command = option(command)
    return command


def config_from(values: dict[str, Any], options: OracleOptions | None = None, **settings: Any) -> ReduceConfig:
    """The :class:`ReduceConfig` of a command that reduces (``reduce``, ``batch``, ``pytest``): its
    strategy, transforms, jobs and format options, the oracle options (``options``, else read from
    ``values``), and the command's own ``settings``: each read by name, once."""
    return ReduceConfig(
        strategy=values["strategy"],
        transforms=transforms_from(values),
        jobs=values["jobs"],
        format=values["format_result"],
        max_tests=values.get("max_tests", None),
        max_seconds=values.get("max_seconds", None),
        keep=values.get("keep", None),
        annotate=values.get("annotate", False),
        resume=values.get("resume", False),
        cache_dir=values.get("cache_dir", None),
        coverage_first=values.get("coverage_first"),
        options=options if options is not None else options_from(values),
        **settings,
    )


_load_oracle_plugins()
