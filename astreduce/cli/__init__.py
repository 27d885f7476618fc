"""The command line: ``astreduce reduce``, ``batch``, ``pytest``, ``compare``, ``isolate``, ``slice``, ``transforms``.

Click lives here and nowhere else in the package. Each command has its own
module; what they share (the error wrapper, the signal handler, the progress
display) is in :mod:`astreduce.cli.common`, and the oracle options in
:mod:`astreduce.cli.options`. Results go to stdout; progress and errors to stderr.
"""

from __future__ import annotations

import errno
import importlib
import sys
from typing import Any

import click

#: Each command's module and object. A command's module is imported when the command runs (or ``--help``
#: lists it): all of them together import the whole engine, a third of a second before any work; one
#: command imports what it needs (``isolate``, ``batch`` and the grammars are a third of that).
_COMMANDS = {
    "batch": ("astreduce.cli.batch", "batch_command"),
    "compare": ("astreduce.cli.compare", "compare_command"),
    "isolate": ("astreduce.cli.isolate", "isolate_command"),
    "pytest": ("astreduce.cli.pytest", "pytest_command"),
    "reduce": ("astreduce.cli.reduce", "reduce_command"),
    "slice": ("astreduce.cli.slice", "slice_command"),
}


class _Group(click.Group):
    """A click group whose own usage errors are one line too, like astreduce's, and whose commands
    are imported when they are used.

    click prints a usage error as three lines (usage, a hint, the error) and
    turns Ctrl-C into "Aborted!" with status 1; the contract is one line and
    status 2 for bad usage, 130 for an interruption.
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in _COMMANDS and cmd_name not in self.commands:
            module, name = _COMMANDS[cmd_name]
            self.add_command(getattr(importlib.import_module(module), name), cmd_name)
        return super().get_command(ctx, cmd_name)

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
            from astreduce.cli.common import fail
            from astreduce.reduce.report import exit_status

            fail("interrupted", exit_status(KeyboardInterrupt()))
        except click.ClickException as error:
            from astreduce.cli.common import fail

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
    from astreduce.cli.common import errors
    from astreduce.search.schedule import ordered, row
    from astreduce.transforms import load_transforms, registered_transforms

    with errors(False):
        registry = registered_transforms()
        width = max(len(n) for n in registry)
        for transform in ordered(load_transforms()):
            click.echo(f"{transform.name:<{width}}  {row(transform.name).phase:<11}  {type(transform).summary()}")


def every_command() -> dict[str, click.Command]:
    """Every command by name, each imported (for a look at them all: their options, their help)."""
    context = click.Context(main)
    return {name: command for name in main.list_commands(context) if (command := main.get_command(context, name))}


def run(args: list[str]) -> int:
    """Run the CLI with ``args`` and return its exit status (for tests and scripts)."""
    from astreduce.reduce.report import EXIT_USAGE

    try:
        main.main(args=args, prog_name="astreduce")
    except SystemExit as exit:
        code = exit.code
        return code if isinstance(code, int) else (0 if code is None else EXIT_USAGE)
    return 0
