"""What every command shares: one error wrapper, one Ctrl-C and SIGTERM handler, one progress display.

Every error astreduce raises on purpose becomes one line on stderr and an
exit status (:func:`astreduce.reduce.report.exit_status`); a traceback only
with ``--debug``. SIGINT and SIGTERM stop a search between two tests with the
same grace for every command, so the best result so far is verified and kept.
"""

from __future__ import annotations

import signal
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, NoReturn, TypeVar

import click

from astreduce.errors import AstReduceError, ReductionStopped
from astreduce.writes import LatestWriter
from astreduce.reduce.report import EXIT_INTERRUPTED, Concluded, exit_status
from astreduce.search.session import StopRequest
from astreduce.search.session import ProgressEvent

R = TypeVar("R")

#: Seconds a stop request may wait for the current test to end before the search is interrupted.
STOP_GRACE = 2.0


#: Which section of ``--help`` each option belongs to (by parameter name); the rest go under "Other options".
_GROUPS = {
    "Oracle: what makes a candidate interesting": (
        "expect", "match", "anywhere", "same_frame", "allow_syntax_errors", "append_path", "run_command", "use_stdin", "signal_name", "exit_code",
        "stderr_pattern", "stdout_pattern", "hang", "test_script", "differential", "python", "timeout", "retries",
        "entry", "root", "modules", "include", "stdin_path", "granularity",
    ),
    "Search: what may change, how far to go": (
        "strategy", "strategy_names", "transform_names", "keep_names", "keep", "exhaustive", "coverage_first", "grammar_path", "start_rule",
        "max_tests", "max_seconds", "strategy_max_tests", "strategy_max_seconds", "refine", "reduce_all",
    ),
    "Output": (
        "output", "diff_path", "in_place", "report_path", "bug_report_path", "annotate", "format_result", "table_path", "listing_path", "csv_path", "json_path",
        "plot_path", "log_x", "markdown", "quiet", "verbose", "debug",
    ),
    "Execution: where and how candidates run": (
        "jobs", "dask_address", "confine", "allow_write", "allow_network", "resume", "cache_dir", "warm", "selective",
    ),
}
_GROUP_OF = {name: title for title, names in _GROUPS.items() for name in names}
ORACLE_SECTION = next(iter(_GROUPS))


def add_to_section(title: str, names: Iterable[str]) -> None:
    """List the options ``names`` (parameter names) under ``title`` in ``--help`` (an oracle's of another package)."""
    _GROUP_OF.update(dict.fromkeys(names, title))


class GroupedCommand(click.Command):
    """A command whose ``--help`` lists its options in sections: oracle, search, output, execution."""

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        sections: dict[str, list[tuple[str, str]]] = {}
        for param in self.get_params(ctx):
            record = None if isinstance(param, click.Argument) else param.get_help_record(ctx)
            if record is not None:
                sections.setdefault(_GROUP_OF.get(param.name or "", "Other options"), []).append(record)
        for title in [*_GROUPS, "Other options"]:
            if title in sections:
                with formatter.section(title):
                    formatter.write_dl(sections[title])


def say(message: str) -> None:
    """Print ``astreduce: message`` on stderr (progress and errors never go to stdout)."""
    click.echo(f"astreduce: {message}", err=True)


def fail(message: str, code: int) -> NoReturn:
    """Print ``astreduce: message`` on stderr and exit with ``code``."""
    say(message)
    sys.exit(code)


@contextmanager
def errors(debug: bool) -> Iterator[None]:
    """Turn astreduce's errors into one line and an exit status."""
    try:
        yield
    except AstReduceError as error:
        if debug:
            traceback.print_exc()
        fail(str(error), exit_status(error))


@contextmanager
def stop_on_signals(stop: StopRequest, grace: float = STOP_GRACE) -> Iterator[None]:
    """SIGINT and SIGTERM stop the search after the current test; a second one, or one
    outside the search, interrupts at once (``KeyboardInterrupt``).

    Between two tests the reducer itself may work for a long time (deeply nested
    input); when the search has not stopped ``grace`` seconds after the request,
    it is interrupted where it is.
    """

    def handler(signum: int, frame: FrameType | None) -> None:
        if not stop.request():
            raise KeyboardInterrupt
        signal.setitimer(signal.ITIMER_REAL, grace)

    def overdue(signum: int, frame: FrameType | None) -> None:
        if stop.searching:
            raise KeyboardInterrupt

    numbers = (signal.SIGINT, signal.SIGTERM, signal.SIGALRM)
    previous = {n: signal.signal(n, overdue if n == signal.SIGALRM else handler) for n in numbers}
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        for number, old in previous.items():
            signal.signal(number, old)


#: Seconds between two progress lines within one pass, when standard error is not a terminal.
LOG_INTERVAL = 10.0


class ProgressDisplay:
    """A live display on a terminal (its clock ticks while a slow test runs); a line per pass otherwise."""

    def __init__(self, quiet: bool, label: str = "") -> None:
        self.quiet = quiet
        self.label = label
        """What runs (``compare``: the strategy), before each line and in the panel's first row."""
        self.live: Any = None
        self.last_pass = ""
        self.last_draw = 0.0
        self.started = time.monotonic()
        self.event: ProgressEvent | None = None
        if not quiet and sys.stderr.isatty():
            from rich.console import Console
            from rich.live import Live

            # refreshed four times a second by rich's own thread, so that the clock moves during a long test
            self.live = Live(self, console=Console(stderr=True), auto_refresh=True, refresh_per_second=4, transient=True)
            self.live.start()

    def __call__(self, event: ProgressEvent) -> None:
        if self.quiet:
            return
        self.event = event
        if self.live is not None:
            return
        now = time.monotonic()
        # a line per pass, and within a long pass (one ddmin over lines) every LOG_INTERVAL seconds
        if event.pass_name != self.last_pass or now - self.last_draw >= LOG_INTERVAL:
            self.last_pass = event.pass_name
            self.last_draw = now
            files = f", {event.files[0]} of {event.files[1]} files" if event.files is not None else ""
            click.echo(
                f"{self.label + ': ' if self.label else ''}[{now - self.started:7.1f}s] {event.pass_name}: tests {event.tests} "
                f"({self.rate(event, now)}), best {event.best.tokens} tokens / {event.best.bytes} bytes{files}",
                err=True,
            )

    def rate(self, event: ProgressEvent, now: float) -> str:
        """Tests per second so far."""
        return f"{event.tests / max(now - self.started, 1e-9):.1f}/s"

    def __rich__(self) -> Any:
        """The panel as it is now: the last event's figures, and the time so far."""
        from rich.table import Table

        table = Table.grid(padding=(0, 2))
        event = self.event
        if self.label:
            table.add_row("strategy", self.label)
        if event is None:
            table.add_row("pass", "running the original")
        else:
            ratio = event.best.tokens / event.original.tokens if event.original.tokens else 1.0
            table.add_row("pass", event.pass_name)
            table.add_row("tests", f"{event.tests} (+{event.cache_hits} cached), {self.rate(event, time.monotonic())}")
            table.add_row("best", f"{event.best.tokens} tokens, {event.best.bytes} bytes, {event.best.lines} lines ({ratio:.1%} of the input)")
            if event.files is not None:
                table.add_row("files", f"{event.files[0]} of {event.files[1]} left")
        table.add_row("time", f"{time.monotonic() - self.started:.1f} s")
        return table

    def stop(self) -> None:
        if self.live is not None:
            self.live.stop()


def run_written(
    work: Callable[[StopRequest, Callable[[ProgressEvent], None]], R],
    writer: LatestWriter,
    final: Callable[[R], None],
    *,
    saved: Callable[[], bool],
    quiet: bool,
    target: object,
    what: str,
) -> tuple[R, bool]:
    """:func:`run_reduction`, each improvement handed to ``writer`` (written off the search's thread) by ``work``'s
    saving callback, and the result by ``final``; whatever ends the reduction, the newest improvement is on disk
    when it returns (or exits 130, saying whether ``target`` holds anything: ``saved``, once written)."""

    def has_saved() -> bool:
        writer.flush()
        return saved()

    try:
        result, interrupted = run_reduction(work, quiet=quiet, target=target, has_saved=has_saved, what=what)
        final(result)
    finally:
        writer.close()
    return result, interrupted


def run_reduction(
    work: Callable[[StopRequest, Callable[[ProgressEvent], None]], R],
    *,
    quiet: bool,
    target: object,
    has_saved: Callable[[], bool],
    what: str,
) -> tuple[R, bool]:
    """Run ``work(stop, progress)`` under the signal handler and the progress display.

    Returns the result and whether the search was stopped (then the result is
    the best so far, from :class:`~astreduce.errors.ReductionStopped`). An
    interruption before the search began, or while it was finishing, exits
    130 at once, saying whether ``target`` holds anything (``has_saved``).
    """
    progress = ProgressDisplay(quiet)
    try:
        stop = StopRequest()
        with stop_on_signals(stop):
            try:
                return work(stop, progress), False
            except ReductionStopped as stopped:
                return stopped.result, True
            except KeyboardInterrupt:
                if has_saved():
                    fail(f"interrupted; best result so far (NOT verified) written to {target}", EXIT_INTERRUPTED)
                fail(f"interrupted before any smaller reproducing {what} was found; nothing written", EXIT_INTERRUPTED)
    finally:
        progress.stop()


def exit_after(result: Concluded, target: object) -> None:
    """Exit as :func:`~astreduce.reduce.report.exit_status` says, saying where the best result is after an
    interruption."""
    if result.interrupted:
        state = "verified" if result.verified else "NOT verified"
        say(f"interrupted; best result so far ({state}) written to {target}")
    status = exit_status(result)
    if status:
        sys.exit(status)
