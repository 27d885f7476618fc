"""``astreduce pytest NODEID [--reduce FILE...] -o OUTDIR``: a failing test, reduced."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from astreduce.cli.common import errors, exit_after, run_reduction, say
from astreduce.cli.options import transforms_from
from astreduce.errors import UsageError
from astreduce.oracles.options import OracleOptions
from astreduce.pytest_node import PytestResult, read_files, reduce_pytest_node, write_files
from astreduce.reduce.single import ReduceConfig
from astreduce.search.strategies import STRATEGIES


@click.command("pytest")
@click.argument("nodeid")
@click.option("--reduce", "modules", multiple=True, metavar="FILE", help="Also reduce this module (repeat for several); the test's file is always reduced.")
@click.option("-o", "--output", required=True, type=click.Path(file_okay=False, path_type=Path), help="Directory for the reduced files, at their paths in the project (created; must be empty).")
@click.option("--root", type=click.Path(file_okay=False, exists=True, path_type=Path), default=".", show_default=True, help="The project's folder: pytest runs NODEID in a copy of it.")
@click.option("--strategy", type=click.Choice(STRATEGIES), default="auto", show_default=True, help="How each file is reduced.")
@click.option("--transforms", "transform_names", metavar="NAME,...", help="Only these transforms (see `astreduce transforms`).")
@click.option("--python", metavar="PATH|VERSION", help="The interpreter that runs pytest (it must have pytest) [default: this one].")
@click.option("--timeout", type=float, help="Seconds per test [default: 10x the original run, at least 2].")
@click.option("-j", "--jobs", type=int, default=1, show_default=True, help="Candidates tested at once; the result is the same for every value.")
@click.option("--format/--no-format", "format_result", default=True, show_default=True, help="Format the results with black when that still reproduces.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False, path_type=Path), help="Write a JSON report here.")
@click.option("-q", "--quiet", is_flag=True, help="No progress output.")
@click.option("--debug", is_flag=True, help="Show tracebacks of astreduce's own errors.")
def pytest_command(nodeid: str, modules: tuple[str, ...], output: Path, root: Path, **values: Any) -> None:
    """Reduce the failing test NODEID's file (and each --reduce module) so that it still fails the same way.

    Every candidate runs as `python -m pytest NODEID` in a fresh copy of the
    project, with the reduced files in place of the originals; it is
    interesting when the same test fails in the same phase with the same
    exception type and message (numbers and addresses made neutral). First
    every other test of the file goes at once, then each file is reduced
    in turn, the others fixed, until nothing changes. The project is never
    written.
    """
    report_path, quiet, debug = (values.pop(name) for name in ("report_path", "quiet", "debug"))
    with errors(debug):
        config = ReduceConfig(
            options=OracleOptions(python=values.pop("python"), timeout=values.pop("timeout")),
            strategy=values.pop("strategy"),
            transforms=transforms_from(values),
            jobs=values.pop("jobs"),
            format=values.pop("format_result"),
        )
        config.check()
        root = root.resolve()
        nodeid, files = read_files(root, nodeid, list(modules))
        if output.exists() and (not output.is_dir() or any(output.iterdir())):
            raise UsageError(f"{output}: the output directory exists and is not empty; remove it or choose another with -o")
        if output.resolve() in {(root / p).resolve() for p in files} or any(
            output.resolve() in (root / p).resolve().parents for p in files
        ):
            raise UsageError(f"{output}: would overwrite a file to reduce; write elsewhere")
        output.mkdir(parents=True, exist_ok=True)
        saved: list[int] = []

        def save(tree: dict[str, str]) -> None:
            write_files(output, tree)
            saved.append(1)

        result, interrupted = run_reduction(
            lambda stop, progress: reduce_pytest_node(
                root, nodeid, files, config, outdir=output, on_improve=save, on_progress=progress, stop=stop
            ),
            quiet=quiet,
            target=output,
            has_saved=lambda: bool(saved),
            what="test",
        )
        save(result.files)
        if report_path is not None:
            report_path.write_text(json.dumps(result.report(), indent=2) + "\n", encoding="utf-8")
        _print(result, output, quiet)
        exit_after(result.verified, interrupted, output)


def _print(result: PytestResult, output: Path, quiet: bool) -> None:
    """The figures on stderr; each reduced file on stdout, under a header."""
    for note in result.notes:
        say(note)
    if not quiet:
        ratio = result.output_tokens / result.input_tokens if result.input_tokens else 1.0
        say(
            f"{result.nodeid} -> {output}: {result.input_tokens} -> {result.output_tokens} tokens ({ratio:.1%}), "
            f"{result.tests} tests, {result.seconds:.1f} s{'' if result.verified else ' (NOT verified)'}; "
            f"still fails: {result.failure.splitlines()[0]}"
        )
    for path, text in result.files.items():
        click.echo(f"==> {path} <==")
        click.echo(text, nl=not text.endswith("\n"))
