"""The command line: ``astreduce reduce``, ``batch``, ``pytest``, ``compare``, ``isolate``, ``slice``, ``transforms``.

Click lives here and nowhere else in the package. Each command has its own
module; what they share (the error wrapper, the signal handler, the progress
display) is in :mod:`astreduce.cli.common`, and the oracle options in
:mod:`astreduce.cli.options`. Results go to stdout; progress and errors to stderr.
"""

from __future__ import annotations

import errno
import sys
from typing import Any

import click

from astreduce.cli.batch import batch_command
from astreduce.cli.common import errors, fail
from astreduce.cli.compare import compare_command
from astreduce.cli.isolate import isolate_command
from astreduce.cli.pytest import pytest_command
from astreduce.cli.reduce import reduce_command
from astreduce.cli.slice import slice_command
from astreduce.reduce.report import EXIT_USAGE, exit_status
from astreduce.search.schedule import ordered, row
from astreduce.transforms import load_transforms, registered_transforms


class _Group(click.Group):
    """A click group whose own usage errors are one line too, like astreduce's.

    click prints a usage error as three lines (usage, a hint, the error) and
    turns Ctrl-C into "Aborted!" with status 1; the contract is one line and
    status 2 for bad usage, 130 for an interruption.
    """

    def main(
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            status = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.Abort:  # click's form of KeyboardInterrupt, EOFError
            fail("interrupted", exit_status(KeyboardInterrupt()))
        except click.ClickException as error:
            fail(_usage_line(error), error.exit_code)
        except OSError as error:
            if error.errno != errno.EPIPE:
                raise
            sys.exit(1)  # stdout closed early (``| head``): nothing more to say
        sys.exit(status if isinstance(status, int) else 0)


def _usage_line(error: click.ClickException) -> str:
    message = " ".join(error.format_message().split())
    context = getattr(error, "ctx", None)
    if isinstance(error, click.UsageError) and context is not None:
        message += f" (see '{context.command_path} --help')"
    return message


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="astreduce", prog_name="astreduce")
def main() -> None:
    """Shrink a Python program that shows a problem to the smallest program that still shows it."""


@main.command("transforms")
def list_transforms() -> None:
    """List the registered transforms in the order of a round, each with its phase and a one-line description."""
    with errors(False):
        registry = registered_transforms()
        width = max(len(n) for n in registry)
        for transform in ordered(load_transforms()):
            click.echo(f"{transform.name:<{width}}  {row(transform.name).phase:<11}  {type(transform).summary()}")


main.add_command(reduce_command)
main.add_command(batch_command)
main.add_command(pytest_command)
main.add_command(compare_command)
main.add_command(isolate_command)
main.add_command(slice_command)


def run(args: list[str]) -> int:
    """Run the CLI with ``args`` and return its exit status (for tests and scripts)."""
    try:
        main.main(args=args, prog_name="astreduce")
    except SystemExit as exit:
        code = exit.code
        return code if isinstance(code, int) else (0 if code is None else EXIT_USAGE)
    return 0
