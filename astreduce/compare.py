"""Comparison experiments: one input, one oracle, every strategy, side by side.

The third use of astreduce (docs/compare.md): reduce the same input with the same
oracle by lines, by characters, by tokens and by syntax tree, and set the
number of tests, the time and the final size beside each other — as a table
and as a plot of size over tests, the way the delta-debugging literature
reports its figures.

* :func:`compare` runs the strategies and returns one :class:`ComparisonRow`
  each. Every strategy starts from the same original and gets its own
  session (its own outcome cache): a strategy never profits from the tests
  another one ran, so the test counts are the ones each would need alone.
* :func:`render_table` prints the rows as a rich table, plain aligned text or
  Markdown; :func:`write_csv` saves them (JSON: :func:`astreduce.reduce.report.write_json`);
  :func:`plot_comparison` draws the size-over-tests curves (matplotlib, an
  optional dependency imported only when a plot is asked for).
* The ``astreduce compare`` command is :mod:`astreduce.cli.compare`; nothing here imports click.

Size over tests. ``Session.history`` records the best size when a pass ends,
so a strategy that is a single ddmin pass (``lines``, ``chars``, ``tokens``,
``flat``) would show one step at its last test. The literature's curves show
ddmin's progress *during* the pass, so :func:`compare` also listens to the
session's callbacks: every reproducing candidate that is shorter than the
last one saved (``on_improve``) is measured and stamped with the test count
of the next progress event, which the session sends right after it. Each
curve is the running minimum of those points and of ``Result.history``,
starting at (0, input tokens) and ending at (final tests, final tokens).
"""

from __future__ import annotations

import csv
import io
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from astreduce.errors import ReductionStopped, UsageError
from astreduce.source.measure import Size, ast_nodes, measure
from astreduce.oracles import Oracle
from astreduce.oracles.options import OracleOptions
from astreduce.reduce.single import ReduceConfig, Result, Search, reduce_with
from astreduce.search.session import StopRequest, PassStats, ProgressEvent
from astreduce.search.strategies import STRATEGIES
from astreduce.source.foreign import ForeignParser
from astreduce.source.syntax import check_parses, syntax_interpreter

#: The order of the table and the default ``--strategy`` list: the literature's plain ddmin granularities,
#: coarse to fine, then the syntax-tree strategies, and the character level last: on a few dozen lines it
#: runs tens of thousands of tests, and the strategies after it would wait for them.
DEFAULT_STRATEGIES = ("lines", "tokens", "flat", "hdd", "auto", "chars")
#: Strategies that need the input to parse as Python.
TREE_STRATEGIES = frozenset(name for name, strategy in STRATEGIES.items() if strategy.on_trees)
#: Formats ``--plot`` can write (by suffix).
PLOT_SUFFIXES = (".png", ".svg", ".pdf")
COLUMNS = (
    "strategy",
    "tests",
    "cache_hits",
    "seconds",
    "bytes",
    "lines",
    "tokens",
    "ast_nodes",
    "verified",
    "ended",
    "note",
)
HEADERS = (
    "strategy",
    "tests",
    "cache hits",
    "seconds",
    "bytes",
    "lines",
    "tokens",
    "AST nodes",
    "verified",
    "ended",
    "note",
)
#: How a strategy's run ended (the ``ended`` column).
FINISHED, BUDGET, INTERRUPTED, SKIPPED = "finished", "budget", "interrupted", "skipped"


@dataclass(frozen=True, slots=True)
class ComparisonRow:
    """One strategy's figures; the numbers are ``None`` when the strategy was skipped."""

    strategy: str
    tests: int | None = None
    """Oracle runs the strategy needed (cache hits not counted; with ``--resume``, those an earlier run made counted)."""
    cache_hits: int | None = None
    seconds: float | None = None
    """Wall time of the whole reduction, verification included."""
    oracle_seconds: float | None = None
    bytes: int | None = None
    lines: int | None = None
    tokens: int | None = None
    ast_nodes: int | None = None
    verified: bool | None = None
    curve: tuple[tuple[int, int], ...] = ()
    """(tests, tokens of the best so far): from (0, input tokens) to (tests, final tokens)."""
    text: str | None = None
    """The reduced program."""
    passes: tuple[PassStats, ...] = ()
    """Where the tests went: the strategy's passes, in order."""
    note: str = ""
    ended: str = FINISHED
    """``finished``, ``budget`` (its budget or its share of the run's ended it), ``interrupted`` or ``skipped``."""

    @property
    def is_skipped(self) -> bool:
        return self.tests is None

    def record(self) -> dict[str, Any]:
        """The row's fields for CSV and JSON (without the curve and the text)."""
        return {name: getattr(self, name) for name in COLUMNS}


class ComparisonStopped(ReductionStopped):
    """A comparison was interrupted; ``rows`` holds the rows finished so far.

    The interrupted strategy's row is the last one, with its best result so
    far and the note ``interrupted``.
    """

    def __init__(self, message: str, rows: list[ComparisonRow]) -> None:
        super().__init__(message, rows[-1] if rows else None)
        self.rows = rows


# --- running ------------------------------------------------------------------


def parse_problem(text: str, filename: str, python: str | None = None) -> str | None:
    """Why the tree strategies cannot parse ``text``, or ``None`` when they can.

    The same check ``reduce_source`` makes, with the same parser: another
    interpreter's when ``python`` names a newer one.
    """
    path = syntax_interpreter(python)
    parser = ForeignParser(path) if path is not None else None
    try:
        check_parses(text, filename, parser)
    except UsageError as error:
        return str(error).split(" (input that is not Python")[0].split("; it looks like Python 2")[0]
    finally:
        if parser is not None:
            parser.close()
    return None


@dataclass
class _Tracker:
    """Collects (tests, tokens) whenever the session saves a shorter reproducing candidate."""

    points: list[tuple[int, int]] = field(default_factory=list)
    pending: int | None = None

    def improved(self, text: str) -> None:
        tokens = measure(text).tokens
        self.pending = tokens if self.pending is None else min(self.pending, tokens)

    def progressed(self, event: ProgressEvent) -> None:
        # the session calls on_improve inside the test that found the candidate and sends
        # this event right after it: the candidate belongs to this test count
        if self.pending is not None:
            self.points.append((event.tests, self.pending))
            self.pending = None

    def curve(self, result: Result) -> tuple[tuple[int, int], ...]:
        points = sorted(self.points + list(result.history))
        curve = [(0, result.input_size.tokens)]
        for tests, tokens in points:
            if tokens < curve[-1][1]:
                curve.append((tests, tokens))
        # the curve ends at the result as reported (a shorter text seen mid-pass may
        # have had fewer tokens than the result the pass settled on)
        end = (result.tests, result.output_size.tokens)
        if curve[-1] != end:
            curve.append(end)
        return tuple(curve)


def _row(result: Result, tracker: _Tracker, note: str = "", ended: str = "") -> ComparisonRow:
    notes = [note] if note else []
    if result.resumed:
        notes.append(f"{result.resumed:,} of its tests answered from an earlier run's cache (--resume)")
    notes += result.notes
    return ComparisonRow(
        strategy=result.strategy,
        tests=result.tests + result.resumed,  # a test an earlier run made is one the strategy needs
        cache_hits=result.cache_hits,
        seconds=result.seconds,
        oracle_seconds=result.oracle_seconds,
        bytes=result.output_size.bytes,
        lines=result.output_size.lines,
        tokens=result.output_size.tokens,
        ast_nodes=result.output_ast_nodes,
        verified=result.verified,
        curve=tracker.curve(result),
        text=result.text,
        passes=tuple(result.passes),
        note="; ".join(notes),
        ended=ended or (BUDGET if result.budget_ended else FINISHED),
    )


@dataclass(frozen=True)
class Budgets:
    """``compare``'s budgets: for the whole run (``max_tests``, ``max_seconds``) and for each strategy.

    The whole run's budget is shared: each strategy may spend what is left divided by the strategies still
    to run (what one leaves goes to those after it), so that every strategy runs and the run ends on time.
    """

    max_tests: int | None = None
    max_seconds: float | None = None
    strategy_max_tests: int | None = None
    strategy_max_seconds: float | None = None
    since: float = field(default_factory=time.monotonic)
    """When the whole run's time began (``time.monotonic()``; by default, when the budgets were made)."""

    def check(self) -> None:
        for option, value in (("--max-tests", self.max_tests), ("--strategy-max-tests", self.strategy_max_tests)):
            if value is not None and value < 1:
                raise UsageError(f"{option} must be at least 1, not {value}")
        for option, seconds in (("--max-time", self.max_seconds), ("--strategy-max-time", self.strategy_max_seconds)):
            if seconds is not None and not seconds > 0:
                raise UsageError(f"{option} must be a positive number of seconds, not {seconds:g}")

    def share(self, tests_used: int, left: int) -> tuple[int | None, float | None]:
        """The tests and seconds the next strategy may spend, after ``tests_used`` tests, with ``left``
        strategies still to run (this one included)."""
        seconds_used = time.monotonic() - self.since
        tests = self.strategy_max_tests
        if self.max_tests is not None:
            fair = max(1, (self.max_tests - tests_used) // left)
            tests = fair if tests is None else min(tests, fair)
        seconds = self.strategy_max_seconds
        if self.max_seconds is not None:
            fair_seconds = max(0.1, (self.max_seconds - seconds_used) / left)
            seconds = fair_seconds if seconds is None else min(seconds, fair_seconds)
        return tests, seconds


def compare(
    text: str,
    oracle: Oracle[str],
    strategies: Sequence[str] = DEFAULT_STRATEGIES,
    *,
    filename: str = "candidate.py",
    options: OracleOptions | None = None,
    jobs: int = 1,
    search_path: str = "",
    encode: Callable[[str], bytes] | None = None,
    stop: StopRequest | None = None,
    on_row: Callable[[ComparisonRow], None] | None = None,
    search: Search | None = None,
    budgets: Budgets | None = None,
    on_strategy: Callable[[str], Callable[[ProgressEvent], None] | None] | None = None,
    resume: bool = False,
    cache_dir: str | Path | None = None,
) -> list[ComparisonRow]:
    """Reduce ``text`` with each strategy in turn, all against the same ``oracle``.

    Each strategy gets a fresh session, so no outcome cache is shared between
    them and each test count is what that strategy needs on its own (so is
    the persistent cache of ``resume``: one part per strategy). The
    tree strategies (``flat``, ``hdd``, ``auto``) are skipped, with a note,
    when ``text`` does not parse; ``lines``, ``chars`` and ``tokens`` work
    on any text.

    Args:
        text: the original input; it must FAIL under ``oracle``.
        oracle: judges every candidate of every strategy (any :class:`Oracle`).
        strategies: names from :data:`astreduce.search.strategies.STRATEGIES`, in table order.
        filename: the input's name, for messages and the parse check.
        options: the options ``oracle`` was built from; their ``python`` picks
            the parser for input in a newer Python's syntax.
        jobs: candidates tested at once; test counts and results do not depend on it.
        search_path, encode: as for :func:`~astreduce.reduce.single.reduce_source`.
        stop: lets a signal handler stop the comparison between two tests.
        on_row: called with each row as soon as its strategy has finished.
        search: one more row after the strategies, named by ``search.name``
            (``--grammar``: :class:`~astreduce.grammar.GrammarSearch`).
        budgets: tests and seconds for the whole run and for each strategy (:class:`Budgets`); a strategy
            its budget stopped has its best result so far, verified, and ``ended`` ``budget``.
        on_strategy: called with each strategy's name as it starts; what it returns hears that strategy's
            progress events (a progress panel).
        resume, cache_dir: keep each strategy's outcomes in the persistent cache (``--resume``), so that a rerun
            after an interruption answers the tests already made from disk; the rows count them as tests.

    Returns:
        One row per strategy, in the order given.

    Raises:
        UsageError: an unknown or repeated strategy.
        NotReproducibleError: the original does not FAIL.
        ComparisonStopped: interrupted; ``.rows`` holds the rows so far.
    """
    check_strategies(strategies)
    budgets = budgets if budgets is not None else Budgets()
    budgets.check()
    problem = None
    if TREE_STRATEGIES & set(strategies):
        problem = parse_problem(text, filename, options.python if options is not None else None)
    config = ReduceConfig(
        options=options if options is not None else OracleOptions(),
        jobs=jobs, filename=filename, search_path=search_path, encode=encode, resume=resume, cache_dir=cache_dir,
    )
    rows: list[ComparisonRow] = []
    runs: list[tuple[str, Search | None]] = [(strategy, None) for strategy in strategies]
    if search is not None:
        runs.append((search.name, search))
    tests_used = 0
    for index, (strategy, searching) in enumerate(runs):
        try:
            if strategy in TREE_STRATEGIES and problem is not None:
                row = ComparisonRow(strategy, note=f"skipped: {problem}", ended=SKIPPED)
            else:
                tracker = _Tracker()
                max_tests, max_seconds = budgets.share(tests_used, len(runs) - index)
                heard = on_strategy(strategy) if on_strategy is not None else None

                def progressed(
                    event: ProgressEvent, heard: Callable[[ProgressEvent], None] | None = heard, tracker: _Tracker = tracker,
                ) -> None:
                    tracker.progressed(event)
                    if heard is not None:
                        heard(event)

                try:
                    result = reduce_with(
                        text, replace(
                            config, strategy=strategy if searching is None else "auto", max_tests=max_tests,
                            max_seconds=max_seconds,
                        ),
                        oracle, stop=stop, on_improve=tracker.improved, on_progress=progressed, search=searching,
                    )
                except ReductionStopped as stopped:
                    if isinstance(stopped.result, Result):
                        rows.append(_row(stopped.result, tracker, "interrupted", INTERRUPTED))
                    raise ComparisonStopped(f"interrupted during {strategy}", rows) from None
                row = _row(result, tracker)
                tests_used += result.tests
                if stop is not None and stop.requested:  # the strategy had just finished
                    rows.append(row)
                    raise ComparisonStopped(f"interrupted after {strategy}", rows)
            rows.append(row)
            if on_row is not None:
                on_row(row)
        except KeyboardInterrupt:  # outside a search (the original's run, the final check, a row): no result
            if not rows or rows[-1].strategy != strategy:
                rows.append(ComparisonRow(strategy, note="interrupted", ended=INTERRUPTED))
            raise ComparisonStopped(f"interrupted during {strategy}", rows) from None
    return rows


def check_strategies(strategies: Sequence[str]) -> None:
    if not strategies:
        raise UsageError("no strategies to compare; name some with --strategy NAME (repeat it)")
    for name in strategies:
        if name not in STRATEGIES:
            raise UsageError(
                f"unknown strategy {name!r}; choose from {','.join(DEFAULT_STRATEGIES)}"
            )
    repeated = sorted({name for name in strategies if list(strategies).count(name) > 1})
    if repeated:
        raise UsageError(f"strategy {repeated[0]!r} is named twice in --strategy")


# --- tables -------------------------------------------------------------------


def _cells(row: ComparisonRow) -> list[str]:
    def number(value: int | None) -> str:
        return "" if value is None else f"{value:,}"

    verified = "" if row.verified is None else ("yes" if row.verified else "NO")
    seconds = "" if row.seconds is None else f"{row.seconds:.1f}"
    ended = "stopped by the budget" if row.ended == BUDGET else row.ended
    return [
        row.strategy,
        number(row.tests),
        number(row.cache_hits),
        seconds,
        number(row.bytes),
        number(row.lines),
        number(row.tokens),
        number(row.ast_nodes),
        verified,
        ended,
        row.note,
    ]


def _input_cells(size: Size, nodes: int | None) -> list[str]:
    return [
        "input",
        "",
        "",
        "",
        f"{size.bytes:,}",
        f"{size.lines:,}",
        f"{size.tokens:,}",
        "" if nodes is None else f"{nodes:,}",
        "",
        "",
        "",
    ]


def _table(
    rows: Sequence[ComparisonRow], original: str | None
) -> tuple[list[str], list[list[str]]]:
    body = [_cells(row) for row in rows]
    if original is not None:
        body.insert(0, _input_cells(measure(original), ast_nodes(original)))
    headers = list(HEADERS)
    if not any(row.note for row in rows):  # no notes: no empty column
        headers.pop()
        body = [cells[:-1] for cells in body]
    return headers, body


def render_table(
    rows: Sequence[ComparisonRow], original: str | None = None, style: str = "plain"
) -> str:
    """The rows as ``plain`` aligned text or ``markdown``; an ``input`` row first when
    ``original`` is given. (The rich table for terminals is :func:`print_table`.)"""
    headers, body = _table(rows, original)
    numeric = [
        0 < i < len(headers) and headers[i] not in ("verified", "ended", "note") for i in range(len(headers))
    ]
    if style == "markdown":
        lines = ["| " + " | ".join(headers) + " |"]
        lines.append("| " + " | ".join("---:" if n else "---" for n in numeric) + " |")
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |" for cells in body]
        return "\n".join(lines) + "\n"
    widths = [max(len(r[i]) for r in [headers, *body]) for i in range(len(headers))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            c.rjust(w) if n else c.ljust(w) for c, w, n in zip(cells, widths, numeric)
        ).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *map(line, body)]) + "\n"


def _write(text: str) -> None:
    """Write ``text`` to stdout at once (as ``click.echo`` did, without importing click here)."""
    sys.stdout.write(text)
    sys.stdout.flush()


def print_table(
    rows: Sequence[ComparisonRow], original: str | None, title: str, style: str
) -> None:
    """Print to stdout: Markdown when asked, a rich table on a terminal, else plain text."""
    if style == "markdown":
        _write(render_table(rows, original, "markdown"))
        return
    from rich.console import Console

    console = Console()
    if not console.is_terminal:
        _write(render_table(rows, original, "plain"))
        return
    from rich.table import Table

    headers, body = _table(rows, original)
    notes = [f"{row.strategy}: {row.note}" for row in rows if row.note]
    if headers[-1] == "note":  # on a terminal notes go below the table: the columns stay narrow
        headers, body = headers[:-1], [cells[:-1] for cells in body]
    table = Table(title=title)
    for index, header in enumerate(headers):
        table.add_column(
            header,
            justify="left" if header == "strategy" else "right",
            min_width=max(len(cells[index]) for cells in body),  # headers may wrap, figures not
        )
    for cells in body:
        table.add_row(*cells, style="dim" if cells[0] == "input" else None)
    console.print(table)
    for note in notes:
        console.print(note, highlight=False)


def write_csv(path: str | Path, rows: Sequence[ComparisonRow]) -> None:
    """One line per strategy, the columns of :data:`COLUMNS`."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: ("" if v is None else v) for k, v in row.record().items()})
    Path(path).write_text(buffer.getvalue(), encoding="utf-8")


def comparison_dict(
    rows: Sequence[ComparisonRow], original: str, input_path: str | None, oracle: str
) -> dict[str, Any]:
    """Everything a comparison produced, for JSON: input, oracle, rows with curves and results."""
    size = measure(original)
    return {
        "input": {
            "path": input_path,
            "bytes": size.bytes,
            "lines": size.lines,
            "tokens": size.tokens,
            "ast_nodes": ast_nodes(original),
        },
        "oracle": oracle,
        "rows": [
            {
                **row.record(),
                "oracle_seconds": row.oracle_seconds,
                "curve": [list(point) for point in row.curve],
                "passes": [
                    {
                        "name": p.name,
                        "tests": p.tests,
                        "seconds": round(p.seconds, 3),
                        "tokens_before": p.tokens_before,
                        "tokens_after": p.tokens_after,
                    }
                    for p in row.passes
                ],
                "output": row.text,
            }
            for row in rows
        ],
    }


# --- the plot -----------------------------------------------------------------


def plot_comparison(
    rows: Sequence[ComparisonRow],
    path: str | Path,
    *,
    title: str,
    subtitle: str = "",
    log_x: bool = False,
) -> list[str]:
    """Draw tokens over tests, one step curve per strategy, and save it to ``path``.

    The format follows the suffix (png, svg, pdf). SVG keeps its text as text
    (searchable, and the tests read the legend back from it). Only the
    object-oriented matplotlib API is used, with the Agg canvas: no pyplot
    state, no display needed.

    Returns:
        The legend's labels, one per row, in order.

    Raises:
        UsageError: matplotlib is not installed, or the suffix is not a plot format.
    """
    path = Path(path)
    if path.suffix.lower() not in PLOT_SUFFIXES:
        raise UsageError(f"--plot {path}: the file name must end in {', '.join(PLOT_SUFFIXES)}")
    try:
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise UsageError("--plot needs matplotlib: pip install 'astreduce[plot]'") from None

    styles = ["-", "--", "-.", ":"]
    markers = ["o", "s", "^", "D", "v", "P", "X", "*"]
    with matplotlib.rc_context(
        {"svg.fonttype": "none", "svg.hashsalt": "astreduce", "font.size": 10}
    ):
        figure = Figure(figsize=(8, 5), dpi=100, layout="constrained")
        FigureCanvasAgg(figure)
        axes = figure.add_subplot()
        for index, row in enumerate(rows):
            style = styles[index % len(styles)]
            marker = markers[index % len(markers)]
            if row.is_skipped or not row.curve:
                axes.plot(
                    [],
                    [],
                    linestyle=style,
                    color=f"C{index}",
                    label=f"{row.strategy}: {row.note or 'skipped'}",
                )
                continue
            xs = [x for x, _ in row.curve]
            ys = [y for _, y in row.curve]
            axes.step(
                xs,
                ys,
                where="post",
                linestyle=style,
                linewidth=1.8,
                color=f"C{index}",
                marker=marker,
                markevery=[len(xs) - 1],
                markersize=7,
                label=f"{row.strategy}: {row.tests:,} tests → {row.tokens:,} tokens",
            )
        if log_x:
            axes.set_xscale("symlog", linthresh=1)
            axes.set_xlabel("tests (oracle runs; log scale)")
        else:
            axes.set_xlabel("tests (oracle runs)")
        axes.set_xlim(left=0)
        axes.set_ylim(bottom=0)
        axes.set_ylabel("size of the best candidate (Python tokens)")
        axes.set_title(f"{title}\n{subtitle}" if subtitle else title)
        axes.grid(True, which="major", alpha=0.3)
        legend = axes.legend(title="strategy: tests → final size", loc="best", fontsize=9)
        figure.savefig(path, metadata=_metadata(path))
        return [text.get_text() for text in legend.get_texts()]


def _metadata(path: Path) -> dict[str, Any]:
    # no creation date in the file, so the same comparison writes the same bytes
    suffix = path.suffix.lower()
    if suffix == ".svg":
        return {"Date": None}
    if suffix == ".pdf":
        return {"CreationDate": None}
    return {}


__all__ = [
    "DEFAULT_STRATEGIES",
    "ComparisonRow",
    "ComparisonStopped",
    "compare",
    "comparison_dict",
    "plot_comparison",
    "render_table",
    "write_csv",
]
