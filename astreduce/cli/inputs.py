"""How the commands read their inputs: the size limit, and links in an input folder (``file_checks.InputPolicy``)."""

from __future__ import annotations

from typing import Any

import click

from astreduce.file_checks import MAX_INPUT_BYTES, InputPolicy

#: ``--max-input-bytes``: every command that reads input files.
max_input_option = click.option(
    "--max-input-bytes", type=click.IntRange(min=1), default=MAX_INPUT_BYTES, show_default=True, metavar="BYTES",
    help="Refuse an input file larger than this (16 MiB: most likely a mistake). A FIFO, a device, or a file of /proc is always refused.",
)
#: ``--follow-symlinks``: the commands that read input folders.
follow_symlinks_option = click.option(
    "--follow-symlinks", is_flag=True,
    help="Follow a symbolic link in an input folder when it leads inside the folder (one that leads outside is refused all the same); without it, any link is refused.",
)


def input_policy(values: dict[str, Any]) -> InputPolicy:
    """Take ``--max-input-bytes`` (and ``--follow-symlinks``, where the command has it) out of a command's keyword arguments."""
    return InputPolicy(max_bytes=values["max_input_bytes"], follow_symlinks=bool(values.get("follow_symlinks", False)))
