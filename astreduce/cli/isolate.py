"""``astreduce isolate OLD NEW``: the failure-inducing changes between a passing and a failing version.

What a user applies comes first: the patch on OLD (stdout, ``-o``), 1-minimal
by lines unless ``--no-refine``; beside it the 1-minimal difference between
the passing and the failing version (``STEM.minimal-difference.diff``), and
the two versions (``STEM.passing.py``, ``STEM.failing.py``).
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from astreduce.cli.common import GroupedCommand, errors, exit_after, run_reduction, say
from astreduce.cli.options import options_from, oracle_options
from astreduce.reduce.report import is_stdout, write_json
from astreduce.errors import UsageError
from astreduce.cli.inputs import follow_symlinks_option, max_input_option
from astreduce.files import check_output_path, check_outputs, materialise, read_source, write_atomically
from astreduce.file_checks import InputPolicy
from astreduce.isolate import (
    GRANULARITIES,
    Granularity,
    IsolationResult,
    changed_lines,
    isolate_paths,
    isolation_report,
)


def output_paths(old: Path, new: Path, diff: Path | None) -> dict[str, Path]:
    """Where the results go: the patch on OLD to DIFF, the rest next to it (its stem + ``.passing.py`` ...);
    without DIFF, all of them next to NEW (the patch as ``STEM.isolated.diff``)."""
    if diff is not None:
        folder, stem = diff.parent, diff.stem
    else:
        folder, stem = new.parent, new.stem if not new.is_dir() else new.name
    suffix = "" if new.is_dir() else (new.suffix or ".py")
    return {
        "passing": folder / f"{stem}.passing{suffix}",
        "failing": folder / f"{stem}.failing{suffix}",
        "isolated": diff if diff is not None else folder / f"{stem}.isolated.diff",
        "difference": folder / f"{stem}.minimal-difference.diff",
    }


_MARKER = ".astreduce-isolate"


def _write_tree(tree: Mapping[str, str], folder: Path) -> None:
    """Replace ``folder`` with ``tree``; only a folder this command wrote before is replaced."""
    if folder.exists():
        if not (folder / _MARKER).is_file():
            raise UsageError(f"{folder} exists and was not written by astreduce isolate: move it away first")
        shutil.rmtree(folder)
    folder.mkdir()
    materialise(tree, folder)
    (folder / _MARKER).write_text("written by astreduce isolate\n", encoding="utf-8")


@click.command("isolate", cls=GroupedCommand)
@click.argument("old", type=click.Path(path_type=Path))
@click.argument("new", type=click.Path(path_type=Path))
@oracle_options
@click.option("--granularity", type=click.Choice(GRANULARITIES), default="functions", show_default=True, help="Changes by difflib line hunks, by statements (syntax-aware), or by statements grouped by their enclosing function/class.")
@click.option("--entry", metavar="FILE", help="Directories: the file to run as __main__ (relative to the tree, which goes on sys.path); also {file} in --run.")
@click.option("--refine/--no-refine", default=True, show_default=True, help="Split the isolated changes into statements, then single lines, until the patch on OLD is 1-minimal by lines (HDD); --no-refine stops at --granularity.")
@click.option("-o", "--output", "diff_path", type=click.Path(dir_okay=False, path_type=Path), help="Write the patch on OLD here (what stdout shows); the minimal difference and the passing and failing versions go next to it (DIFF's stem + .minimal-difference.diff, .passing.py, .failing.py) [default: next to NEW, the patch as NEW's stem + .isolated.diff].")
@click.option("--report", "report_path", type=click.Path(dir_okay=False, path_type=Path), help="Write a JSON report here.")
@click.option("-q", "--quiet", is_flag=True, help="Quiet: no progress and no summary on stderr (errors and warnings only).")
@click.option("--debug", is_flag=True, help="Show tracebacks of astreduce's own errors.")
@max_input_option
@follow_symlinks_option
def isolate_command(
    old: Path,
    new: Path,
    granularity: Granularity,
    refine: bool,
    entry: str | None,
    diff_path: Path | None,
    report_path: Path | None,
    quiet: bool,
    debug: bool,
    jobs: int,
    max_input_bytes: int,
    follow_symlinks: bool,
    **oracle_values: Any,
) -> None:
    """Isolate the changes from OLD (passes) to NEW (fails) that make it fail.

    Prints the patch that makes OLD fail (patch -p1 applies it), 1-minimal by
    lines: removing any one of its changed lines makes the failure go away.
    Writes it (-o), the 1-minimal difference between the maximal passing and
    the minimal failing version, and both versions. OLD and NEW are two files
    or two directories (then give --entry FILE or a command oracle).
    """
    with errors(debug):
        reading = InputPolicy(max_bytes=max_input_bytes, follow_symlinks=follow_symlinks)
        options = options_from(oracle_values)
        outputs = output_paths(old, new, diff_path)
        for target in [outputs["isolated"], outputs["difference"], *([report_path] if report_path and not is_stdout(report_path) else [])]:
            check_output_path(target, new if not new.is_dir() else None, what="output")
        check_outputs([] if new.is_dir() else [(outputs["passing"], "passing version"), (outputs["failing"], "failing version")], new)
        # Ctrl-C and SIGTERM as for reduce: the search stops between two tests and the
        # passing and failing versions so far are written (both tested), then exit 130
        result, interrupted = run_reduction(
            lambda stop, progress: isolate_paths(
                old, new, options, granularity, jobs=jobs, entry=entry, stop=stop, refine=refine, reading=reading
            ),
            quiet=True,  # isolate has no live display: its summary comes at the end
            target=new,
            has_saved=lambda: False,
            what="version",
        )
        patch = result.isolated_diff
        written: dict[str, str] = {}
        for which, text in (("isolated", patch), ("difference", result.diff)):
            write_atomically(outputs[which], text.encode("utf-8", errors="surrogateescape"))
            written[which] = str(outputs[which])
        if result.single is not None:
            encode = read_source(new, reading).encode
            for which, tree in (("passing", result.passing), ("failing", result.failing)):
                write_atomically(outputs[which], encode(tree[result.single]))
                written[which] = str(outputs[which])
        else:
            for which, tree in (("passing", result.passing), ("failing", result.failing)):
                _write_tree(tree, outputs[which])
                written[which] = str(outputs[which])
        if report_path is not None:
            report = isolation_report(result, str(old), str(new), written)
            write_json(report_path, report, options)
        if not quiet:
            _say_isolation(result, written)
        if not is_stdout(report_path):
            click.echo(patch, nl=False)
        if not result.verified and not interrupted:
            say("the results did not verify on a second run (a flaky oracle?)")
        exit_after(result, f"{written['passing']} and {written['failing']}")


def _say_isolation(result: IsolationResult, written: Mapping[str, str]) -> None:
    levels = ", ".join(f"{s.name}: {s.changes} changes, {s.tests} tests" for s in result.levels)
    say(f"{levels}; {result.tests} tests in all ({result.unresolved} unresolved), {result.seconds:.1f} s")
    say(
        f"1-minimal difference: {len(result.difference)} change(s), {result.diff_lines} lines, in {written.get('difference')}; "
        f"passing version: {written.get('passing')}, failing version: {written.get('failing')}"
    )
    for change in result.difference:
        say(f"  {change.describe()}")
    if result.requires:
        say(
            f"on OLD alone the difference also needs {'at most ' if result.interrupted else ''}{len(result.requires)} passing change(s): "
            f"OLD + all of them fails"
        )
        for change in result.requires:
            say(f"  {change.describe()}")
    unrefined = changed_lines(result.old, result.coarse)
    minimal = "1-minimal by lines" if result.refined else "not split down to lines"
    say(
        f"patch on OLD ({minimal}): {result.isolated_lines} changed lines ({unrefined} before splitting), "
        f"in {written.get('isolated')}"
    )
