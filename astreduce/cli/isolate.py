"""``astreduce isolate OLD NEW``: the failure-inducing changes between a passing and a failing version.

What a user applies comes first: the patch on OLD (stdout, ``-o``), 1-minimal
by lines unless ``--no-refine``; beside it the difference between the
passing and the failing version of the granularity (``STEM.minimal-difference.diff``), and
the two versions (``STEM.passing.py``, ``STEM.failing.py``). With ``--git
GOOD BAD`` OLD and NEW are two revisions of the repository (``--repo``),
checked out in temporary folders; without ``-o`` only the patch is written,
to stdout, so that nothing lands in the repository.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from astreduce.cli.common import GroupedCommand, errors, exit_after, run_reduction, say
from astreduce.cli.options import (
    budget_option,
    quiet_option, resume_option,
    cluster_from,
    dask_option,
    options_from,
    oracle_options,
)
from astreduce.errors import UsageError
from astreduce.cli.inputs import follow_symlinks_option, max_input_option
from astreduce.files import OUTPUT_MARK, check_output_path, check_outputs, is_output_folder, materialise, read_source
from astreduce.writes import write_atomically
from astreduce.file_checks import InputPolicy
from astreduce.isolate import (
    GRANULARITIES,
    Granularity,
    IsolateProgress,
    IsolateSettings,
    IsolationResult,
    changed_lines,
    isolate_paths,
    isolation_report,
)
from astreduce.isolate.git import revisions
from astreduce.reduce.report import is_stdout, write_json


def output_paths(old: Path, new: Path, diff: Path | None, *, trees: bool | None = None) -> dict[str, Path]:
    """Where the results go: the patch on OLD to DIFF, the rest next to it (its stem + ``.passing.py`` ...);
    without DIFF, all of them next to NEW (the patch as ``STEM.isolated.diff``). ``trees``: the versions are
    folders (by default, when NEW is one)."""
    trees = new.is_dir() if trees is None else trees
    if diff is not None:
        folder, stem = diff.parent, diff.stem
    else:
        folder, stem = new.parent, new.name if trees else new.stem
    suffix = "" if trees else (new.suffix or ".py")
    return {
        "passing": folder / f"{stem}.passing{suffix}",
        "failing": folder / f"{stem}.failing{suffix}",
        "isolated": diff if diff is not None else folder / f"{stem}.isolated.diff",
        "difference": folder / f"{stem}.minimal-difference.diff",
    }


#: What marked isolate's version folders before every result tree had :data:`~astreduce.files.OUTPUT_MARK`.
_OLD_MARKER = ".astreduce-isolate"


def _write_tree(tree: Mapping[str, str], folder: Path) -> None:
    """Replace ``folder`` with ``tree``; only a folder astreduce wrote before is replaced."""
    if folder.exists():
        if not is_output_folder(folder) and not (folder / _OLD_MARKER).is_file():
            raise UsageError(f"{folder} exists and was not written by astreduce isolate: move it away first")
        shutil.rmtree(folder)
    folder.mkdir()
    materialise(tree, folder)
    (folder / OUTPUT_MARK).write_text("written by astreduce isolate; never read as part of an input tree\n", encoding="utf-8")


#: Seconds between two progress lines within one level.
PROGRESS_INTERVAL = 10.0


class IsolateDisplay:
    """Progress on stderr as ``reduce`` shows it without a terminal: a line when a level starts, then every few seconds."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.started = time.monotonic()
        self.level = ""
        self.last = 0.0

    def __call__(self, event: IsolateProgress) -> None:
        if self.quiet:
            return
        now = time.monotonic()
        if event.level != self.level or now - self.last >= PROGRESS_INTERVAL:
            self.level, self.last = event.level, now
            click.echo(
                f"[{now - self.started:7.1f}s] {event.level}: tests {event.tests}, patch {event.patch_lines:,} changed lines",
                err=True,
            )


@click.command("isolate", cls=GroupedCommand)
@click.argument("old", type=click.Path(path_type=Path))
@click.argument("new", type=click.Path(path_type=Path))
@oracle_options
@click.option("--node", "node", metavar="NODEID", help="Directories: a pytest node as the oracle (FILE.py::TEST), run warm as `astreduce pytest` runs it: interesting when it fails as on NEW; its file is NEW's (or the file on disk) in every candidate.")
@click.option("--git", "use_git", is_flag=True, help="OLD and NEW are two revisions (GOOD BAD) of the repository --repo, each checked out in a temporary folder; the repository is never written.")
@click.option("--repo", type=click.Path(file_okay=False, path_type=Path), default=".", show_default=True, help="With --git: the repository.")
@click.option("--granularity", type=click.Choice(GRANULARITIES), default="functions", show_default=True, help="Changes by difflib line hunks, by statements (syntax-aware), or by statements grouped by their enclosing function/class.")
@click.option("--entry", metavar="FILE", help="Directories: the file to run as __main__ (relative to the tree, which goes on sys.path); also {file} in --run.")
@click.option("--refine/--no-refine", default=True, show_default=True, help="Minimise the patch on OLD by hunks, statements and single lines until it is 1-minimal by lines (HDD); --no-refine stops at --granularity.")
@click.option("--reexpress/--no-reexpress", default=True, show_default=True, help="With --refine: try OLD's own lines edited in place toward the patch's NEW lines, down to single tokens, and keep a smaller patch that fails.")
@click.option("--coverage/--no-coverage", default=True, show_default=True, help="Directories: run the oracle once more on OLD and NEW to see which lines run, and try changes to code neither runs last, in one group.")
@budget_option
@resume_option
@dask_option
@max_input_option
@follow_symlinks_option
@click.option("-o", "--output", "diff_path", type=click.Path(dir_okay=False, path_type=Path), help="Write the patch on OLD here (what stdout shows); the minimal difference and the passing and failing versions go next to it (DIFF's stem + .minimal-difference.diff, .passing.py, .failing.py) [default: next to NEW, the patch as NEW's stem + .isolated.diff; with --git, only stdout].")
@click.option("--report", "report_path", type=click.Path(dir_okay=False, path_type=Path), help="Write a JSON report here.")
@quiet_option
def isolate_command(
    old: Path,
    new: Path,
    granularity: Granularity,
    refine: bool,
    reexpress: bool,
    coverage: bool,
    entry: str | None,
    node: str | None,
    use_git: bool,
    repo: Path,
    diff_path: Path | None,
    report_path: Path | None,
    quiet: bool,
    debug: bool,
    jobs: int,
    max_tests: int | None,
    max_seconds: float | None,
    resume: bool,
    cache_dir: Path | None,
    dask_address: str | None,
    max_input_bytes: int,
    follow_symlinks: bool,
    **oracle_values: Any,
) -> None:
    """Isolate the changes from OLD (passes) to NEW (fails) that make it fail.

    Prints the patch that makes OLD fail (patch -p1 applies it), 1-minimal by
    lines: removing any one of its changed lines makes the failure go away.
    Writes it (-o), the difference between the passing and the failing
    version of the granularity, and both versions. OLD and NEW are two files
    or two directories (then give --entry FILE, --node NODEID or a command
    oracle), or with --git two revisions of a repository.

    Exit status: 0 found and verified (also when --max-tests or --max-time
    ended the search: the best patch so far); 1 OLD does not pass or NEW does
    not fail (or not reliably); 2 bad usage; 130 interrupted.
    """
    with errors(debug):
        context = click.get_current_context()
        if node is not None and context.get_parameter_source("match") is not click.core.ParameterSource.COMMANDLINE:
            oracle_values["match"] = "first-line"  # as `astreduce pytest` compares a node's failure
        reading = InputPolicy(max_bytes=max_input_bytes, follow_symlinks=follow_symlinks)
        options = options_from(oracle_values)
        cluster, jobs = cluster_from(dask_address, jobs)
        settings = IsolateSettings(
            granularity=granularity, jobs=jobs, refine=refine, reexpress=reexpress, coverage=coverage, entry=entry, node=node,
            max_tests=max_tests, max_seconds=max_seconds, resume=resume, cache_dir=cache_dir,
        )
        settings.check()
        display = IsolateDisplay(quiet)

        def run(old_path: Path, new_path: Path) -> tuple[IsolationResult, bool]:
            return run_reduction(
                lambda stop, progress: isolate_paths(
                    old_path, new_path, options, settings=settings, stop=stop, on_progress=display, on_note=say, cluster=cluster,
                    reading=reading,
                ),
                quiet=True,  # isolate's own display shows the progress
                target=new_path,
                has_saved=lambda: False,
                what="version",
            )

        if use_git:
            for path in (diff_path, report_path):
                if path is not None and not is_stdout(path):
                    check_output_path(path, None, what="output")
            with revisions(repo, str(old), str(new)) as (good_tree, bad_tree, good, bad):
                if not quiet:
                    say(f"--git: {old} is {good[:12]}, {new} is {bad[:12]}; each checked out in a temporary folder")
                result, interrupted = run(good_tree, bad_tree)
            outputs = output_paths(Path(str(old)), Path(str(new)), diff_path, trees=True) if diff_path is not None else None
        else:
            outputs = output_paths(old, new, diff_path)
            for target in [outputs["isolated"], outputs["difference"], *([report_path] if report_path and not is_stdout(report_path) else [])]:
                check_output_path(target, new if not new.is_dir() else None, what="output")
            check_outputs([] if new.is_dir() else [(outputs["passing"], "passing version"), (outputs["failing"], "failing version")], new)
            result, interrupted = run(old, new)
        written = _write_outputs(result, outputs, new if not use_git else None, reading)
        if report_path is not None:
            write_json(report_path, isolation_report(result, str(old), str(new), written), options)
        if not quiet:
            for note in result.notes:
                say(note)
            _say_isolation(result, written)
        if not is_stdout(report_path):
            click.echo(result.isolated_diff, nl=False)
        if not result.verified and not interrupted:
            say("the results did not verify on a second run (a flaky oracle?)")
        if result.budget_ended and not quiet:
            say("--max-tests or --max-time ended the search: the patch is the smallest verified so far")
        exit_after(result, f"{written['passing']} and {written['failing']}" if "passing" in written else "stdout")


def _write_outputs(result: IsolationResult, outputs: Mapping[str, Path] | None, new: Path | None, reading: InputPolicy) -> dict[str, str]:
    """Write the patch, the minimal difference and both versions where ``outputs`` says (None: nothing); where each went."""
    written: dict[str, str] = {}
    if outputs is None:
        return written
    for which, text in (("isolated", result.isolated_diff), ("difference", result.diff)):
        write_atomically(outputs[which], text.encode("utf-8", errors="surrogateescape"))
        written[which] = str(outputs[which])
    if result.single is not None and new is not None:
        encode = read_source(new, reading).encode
        for which, tree in (("passing", result.passing), ("failing", result.failing)):
            write_atomically(outputs[which], encode(tree[result.single]))
            written[which] = str(outputs[which])
    else:
        for which, tree in (("passing", result.passing), ("failing", result.failing)):
            _write_tree(tree, outputs[which])
            written[which] = str(outputs[which])
    return written


def _say_isolation(result: IsolationResult, written: Mapping[str, str]) -> None:
    def level(s: Any) -> str:
        pruned = f" ({s.pruned} set aside: no run executes them{', needed' if s.pruned_needed else ''})" if s.pruned else ""
        return f"{s.name}: {s.changes} changes{pruned}, {s.tests} tests"

    resumed = f", {result.resumed} more answered from an earlier run's cache (--resume)" if result.resumed else ""
    say("; ".join(level(s) for s in result.levels) + f"; {result.tests} tests in all ({result.unresolved} unresolved){resumed}, {result.seconds:.1f} s")
    coverage = result.coverage
    if coverage.measured:
        say(f"coverage: OLD's run executed {sum(len(v) for v in coverage.old.values()):,} lines in {len(coverage.old)} files, "
            f"NEW's {sum(len(v) for v in coverage.new.values()):,} in {len(coverage.new)}")
    elif result.single is None:
        say(f"coverage not measured: {coverage.why}")
    if written.get("difference"):
        say(
            f"difference of the passing and failing versions: {len(result.difference)} change(s), {result.diff_lines} lines, "
            f"in {written.get('difference')}; "
            f"passing version: {written.get('passing')}, failing version: {written.get('failing')}"
        )
    for change in result.difference[:20]:
        say(f"  {change.describe()}")
    if result.requires:
        say(
            f"on OLD alone the difference also needs {'at most ' if result.interrupted else ''}{len(result.requires)} passing change(s): "
            f"OLD + all of them fails"
        )
        for change in result.requires[:20]:
            say(f"  {change.describe()}")
    unrefined = changed_lines(result.old, result.coarse)
    minimal = "1-minimal by lines" if result.refined else "not split down to lines"
    if result.reexpressed:
        say(f"re-expressed on OLD: {result.reexpressed}")
    say(
        f"patch on OLD ({minimal}): {result.isolated_lines} changed lines in {result.hunks} hunk{'s' if result.hunks != 1 else ''} "
        f"({unrefined} before splitting), in {written.get('isolated', 'stdout')}"
    )
    say(result.summary())
