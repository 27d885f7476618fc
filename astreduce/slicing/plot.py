"""The run of a slice search drawn as the paper's Figure 5: one row per test, one dot per applied event.

Columns are the events of the recorded trace, in the order they ran (the
axis names them ``line₍occurrence₎`` when there are few enough to read);
rows are the tests in the order the search read them, the first at the top;
a dot marks each event the test applied, coloured by the test's outcome,
and the outcome is written at the row's end (✘ reproduces, ✔ does not, ?
unresolved), as in the paper. The last row is the slice. matplotlib is
optional (the ``plot`` extra) and imported only here, with the Agg canvas.
"""

from __future__ import annotations

from pathlib import Path

from astreduce.compare import PLOT_SUFFIXES
from astreduce.errors import UsageError
from astreduce.outcome import Outcome
from astreduce.slicing.listing import mark
from astreduce.slicing.search import SliceResult

#: Outcome -> (symbol at the row's end, colour of its dots).
STYLE = {
    Outcome.FAIL: ("✘", "tab:red"),
    Outcome.PASS: ("✔", "tab:green"),
    Outcome.UNRESOLVED: ("?", "tab:gray"),
}

#: Rows above which the axis shows matplotlib's own ticks instead of every test's number.
LABELLED_TESTS = 200

#: Events above which the axis shows numbers instead of ``line₍occurrence₎`` labels.
LABELLED_EVENTS = 60


def check_plot_path(path: Path) -> None:
    """Refuse, before any work, a plot file name whose suffix is no plot format."""
    if path.suffix.lower() not in PLOT_SUFFIXES:
        raise UsageError(f"--plot {path}: the file name must end in {', '.join(PLOT_SUFFIXES)}")


def plot_slice(result: SliceResult, path: str | Path) -> None:
    """Draw the search's tests and the slice to ``path`` (png, svg or pdf).

    Raises:
        UsageError: matplotlib is not installed, or the suffix is not a plot format.
    """
    path = Path(path)
    check_plot_path(path)
    try:
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise UsageError("--plot needs matplotlib: pip install 'astreduce[plot]'") from None
    rows = [(run.applied, run.outcome) for run in result.runs] + [(result.kept, Outcome.FAIL)]
    events = len(result.trace)
    height = min(60.0, 1.5 + 0.16 * len(rows))
    width = min(30.0, 3.0 + 0.18 * max(events, 10))
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "astreduce", "font.size": 8}):
        figure = Figure(figsize=(width, height), dpi=100, layout="constrained")
        FigureCanvasAgg(figure)
        axes = figure.add_subplot()
        for outcome, (symbol, colour) in STYLE.items():
            xs, ys = [], []
            for row, (applied, seen) in enumerate(rows):
                if seen is outcome:
                    xs += list(applied)
                    ys += [row] * len(applied)
            axes.scatter(xs, ys, s=9, color=colour, marker="o", linewidths=0, label=f"{symbol} {outcome}")
        for row, (_, outcome) in enumerate(rows):
            symbol, colour = STYLE[outcome]
            axes.text(events + 0.5, row, symbol, va="center", ha="left", color=colour)
        axes.set_xlim(-1, events + 2)
        axes.set_ylim(len(rows), -1)
        if events <= LABELLED_EVENTS:
            axes.set_xticks(range(events))
            axes.set_xticklabels([mark(line, occurrence) for _, line, occurrence in result.trace], rotation=90)
        if len(rows) <= LABELLED_TESTS:
            axes.set_yticks(range(len(rows)))
            axes.set_yticklabels([str(i + 1) for i in range(len(rows) - 1)] + ["slice"])
        axes.set_xlabel("events of the recorded run, in order")
        axes.set_ylabel("test")
        axes.set_title(f"{Path(result.program).name}: {len(result.kept)} of {events} events, {result.tests} tests")
        axes.legend(loc="lower left", fontsize=7)
        figure.savefig(path)
