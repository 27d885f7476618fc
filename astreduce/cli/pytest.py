"""``astreduce pytest NODEID -o OUTDIR``: a failing test in a project, reduced with the project."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from astreduce.cli.common import GroupedCommand, errors, exit_after, run_written, say
from astreduce.cli.options import (
    budget_option, cluster_from, config_from, confinement_from, coverage_first_option, dask_option, provenance_option, quiet_option, resume_option,
    transforms_option,
    with_confinement_options,
)
from astreduce.errors import UsageError
from astreduce.files import check_outputs
from astreduce.writes import write_atomically, LatestWriter, TreeWriter
from astreduce.file_checks import check_output_folder
from astreduce.reduce.bug_report import bug_report, for_pytest, relative, reproduce
from astreduce.oracles.options import OracleOptions
from astreduce.pytest_node import PytestResult, read_project, reduce_pytest_node
from astreduce.reduce.report import is_stdout, write_json
from astreduce.reduce.tree_result import TreeResult
from astreduce.search.strategies import STRATEGIES


@click.command("pytest", cls=GroupedCommand)
@click.argument("nodeid")
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False, path_type=Path), help="Directory for the reduced project (created; must not exist or be empty).")
@click.option("--root", type=click.Path(file_okay=False, exists=True, path_type=Path), help="The project's folder: pytest runs NODEID in copies of it [default: the nearest folder above NODEID's file with a pyproject.toml, setup.cfg, pytest.ini, tox.ini or .git, else the working directory].")
@click.option("--reduce", "modules", multiple=True, metavar="FILE", help="Reduce only the test's file and these files (repeat for several) [default: the test's file, the project's modules it imports, and the conftests on its way].")
@click.option("--strategy", type=click.Choice(STRATEGIES), default="auto", show_default=True, help="How each file is reduced.")
@transforms_option
@budget_option
@coverage_first_option
@click.option("--python", metavar="PATH|VERSION", help="The interpreter that runs the project's tests [default: the project's .venv or venv, else this one].")
@click.option("--timeout", type=float, help="Seconds per test [default: 10x the original run, at least 2].")
@click.option("--match", default="first-line", show_default=True, metavar="type|first-line|message|regex:PATTERN", help="How the node's failure must match the original's, besides its node, phase and exception type: the first line of its message, the whole message with pytest's explanation (message), a regular expression searched in the message, or nothing more (type).")
@click.option("--anywhere", is_flag=True, help="Let the failure happen anywhere; by default its raising line must come from the same function of the same file as in the original.")
@click.option("-v", "--verbose", "verbose", type=int, is_flag=False, flag_value=5, default=0, metavar="[LINES]", help="After each test, say how it ended and show the last LINES lines it printed [LINES: 5].")
@click.option("--retries", type=int, default=1, show_default=True, help="Accept a candidate only after it reproduces this many times (for flaky tests).")
@click.option("-j", "--jobs", type=int, default=os.cpu_count() or 1, show_default=True, help="Tests run at once; the result is the same for every value.")
@resume_option
@click.option("--warm/--no-warm", default=True, show_default=True, help="Fork each test from a pytest started and configured once, where a run of the original shows that it ends as a plain run does.")
@click.option("--selective-import/--no-selective-import", "selective", default=False, show_default=True, help="Warm tests: hold the project's modules imported, each test importing again only the modules its candidate changed and those holding their objects.")
@dask_option
@with_confinement_options
@click.option("--format/--no-format", "format_result", default=True, show_default=True, help="Format the reduced files with black when that still reproduces.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False, path_type=Path), help="Write a JSON report here.")
@provenance_option
@quiet_option
def pytest_command(nodeid: str, modules: tuple[str, ...], output: Path, root: Path | None, **values: Any) -> None:
    """Reduce the project around the failing test NODEID so that it still fails the same way.

    The test's file, the project's modules it imports and the conftest files
    on its way are reduced together as a tree: whole files deleted, modules
    merged into their only importer, each file reduced to a fixpoint; the
    project's other files are only kept or deleted. A candidate is
    interesting when pytest, run on the node in a copy of the project
    holding it, fails the same test in the same phase with the same
    exception type and message. Tests fork from a pytest started once
    (plugins, configuration, conftests and third-party imports loaded) where
    that ends as a plain run does. OUTDIR is the reduced project: plain
    pytest run there fails the same way. The project is never written.

    Exit status: 0 reduced and verified by a plain pytest run; 1 the node
    does not fail the same way every time; 2 bad usage (a node pytest does
    not find, a node that passes, no pytest under the interpreter); 130
    interrupted.
    """
    report_path, quiet, debug, warm, dask_address, bug_path = (
        values[name] for name in ("report_path", "quiet", "debug", "warm", "dask_address", "bug_report_path")
    )
    with errors(debug):
        options = OracleOptions(
            timeout=values["timeout"], retries=values["retries"], match=values["match"], anywhere=values["anywhere"],
            verbose=values["verbose"] or 0, **confinement_from(values),
        )
        options.check()
        config = config_from(values, options)
        if output.exists() and (not output.is_dir() or any(output.iterdir())):
            raise UsageError(f"{output}: the output directory exists and is not empty; remove it or choose another with -o")
        if not output.resolve().parent.is_dir():
            raise UsageError(f"{output}: the output's folder {output.parent} does not exist")
        for path, what in ((report_path, "report"), (bug_path, "bug report")):
            if path is not None and not is_stdout(path) and not path.resolve().parent.is_dir():
                raise UsageError(f"{path}: the {what}'s folder {path.parent} does not exist")
        check_output_folder(output)
        check_outputs([(report_path, "report"), (bug_path, "bug report")])
        written = [path for path in (report_path, bug_path) if path is not None and not is_stdout(path)]
        project = read_project(root, nodeid, list(modules), values["python"], outdir=output, written=written)
        cluster, jobs = cluster_from(dask_address, config.jobs)
        config = replace(config, cluster=cluster, jobs=jobs)
        if not quiet:
            say(f"{project.nodeid}: pytest under {project.python} ({project.python_origin}); project {project.root} "
                f"({project.root_origin}); "
                f"{len(project.reduced)} file{'s' if len(project.reduced) != 1 else ''} to reduce, {len(project.tree)} in the project")
        saved: list[int] = []

        writer = LatestWriter(output, TreeWriter(output, project.modes))

        def save(files: dict[str, str]) -> None:
            writer.put(files)
            saved.append(1)

        result, interrupted = run_written(
            lambda stop, progress: reduce_pytest_node(
                project, config, on_improve=save, on_progress=progress, on_note=say, stop=stop, warm=warm, echo=say,
                selective=values["selective"],
            ),
            writer, lambda done: save(done.files), saved=lambda: bool(saved), quiet=quiet, target=output, what="project",
        )
        if report_path is not None:
            write_json(report_path, result.report(str(output)), config.options)
        if bug_path is not None and result.verified:
            _report_the_bug(bug_path, result, output, config.options, quiet)
        _print(result, output, quiet)
        exit_after(result, output)


def _report_the_bug(path: Path, result: PytestResult, output: Path, options: OracleOptions, quiet: bool) -> None:
    """Run the reduced project's node once more as the report shows it, and write the report (``--bug-report``)."""
    tree, project = result.tree, result.project
    reproduction = for_pytest(output, result.files, nodeid=project.nodeid, python=project.python)
    ran = reproduce(reproduction, options.limits())
    before, after = tree.input_size, tree.output_size
    sizes = (
        f"{before.files} → {after.files} files, {before.tokens} → {after.tokens} tokens, {tree.tests} tests, {tree.seconds:.1f} s"
    )
    place = tree.provenance.raised_from if tree.provenance is not None else None
    where = f" in `{place.function}` in `{place.file}`" if place is not None and place.function else ""
    text = bug_report(
        title=f"{project.nodeid} fails: {tree.target.split(': ', 1)[-1]}{where}", files=tree.tree, provenance=tree.provenance,
        reproduction=reproduction, ran=ran, python=project.python, names={p: f"{relative(output)}/{p}" for p in tree.tree},
        original=str(project.root), sizes=sizes,
    )
    write_atomically(path, text.encode("utf-8"))
    if not quiet:
        say(f"bug report written to {path}")


def _place(tree: TreeResult, output: Path) -> str:
    """Where the result fails, and where that line came from ('' when not known)."""
    return tree.provenance.summary(str(output), tree=True) if tree.provenance is not None else ""


def _print(result: PytestResult, output: Path, quiet: bool) -> None:
    """The figures on stderr; the reduced files are in OUTDIR only (-o names it: standard output carries no result)."""
    for note in result.tree.notes:
        say(note)
    tree = result.tree
    if not quiet:
        before, after = tree.input_size, tree.output_size
        ratio = after.tokens / before.tokens if before.tokens else 1.0
        deleted = result.deleted()
        say(
            f"{result.project.nodeid} -> {output}: {before.files} -> {after.files} files, {before.tokens} -> {after.tokens} tokens "
            f"({ratio:.1%}), {tree.tests} tests, {tree.seconds:.1f} s{'' if tree.verified else ' (NOT verified)'}; "
            f"still fails: {tree.target}" + (f"; {place}" if (place := _place(tree, output)) else "")
        )
        if deleted:
            say(f"deleted: {', '.join(deleted[:10])}{' ...' if len(deleted) > 10 else ''}")
