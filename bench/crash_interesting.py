#!/usr/bin/env python3
"""A standalone interestingness checker for the bench's crash cases (``corpora/crash_*``).

::

    python bench/crash_interesting.py [--tools DIR] [--timeout S] [-v]
        [--reference-status=STATUS --reference-line=LINE] CASE_FOLDER CANDIDATE

Exit status 0 means *interesting*: the case's command oracle (its ``--run``,
``--test`` or ``--differential`` command, run on a copy of the candidate in a
fresh temporary folder) does what the case's ``args`` ask for (``--signal``,
``--exit-code``, ``--stderr``, ``--stdout``, ``--hang``; all of them).  Anything
else exits 1; bad usage, or a case whose tool cannot be had, exits 2.

This is the peers' side of astreduce's command oracle.  It reads the case's
``case.toml`` and runs and classifies through ``corpora/crash_tools.py``
(``run_oracle_command``, ``classify``), which is standard library only and
independent of astreduce, so the bench does not grade astreduce with its own
oracle.  It does not ask for ``expect_signature``: like astreduce, the peers
reduce under the args alone, and the harness re-checks every final output with
``crash_tools.reproduces`` (args *and* signature).

``--timeout`` is the limit of one oracle run that is not looking for a hang
(``--hang`` sets its own); the harness passes astreduce's default, ten times
the input's run time and at least 2 s.  For an oracle without classification
options, ``--reference-status`` and ``--reference-line`` give the original's
signature (``exit 1`` or ``signal SIGSEGV``, and the last non-empty line of its
stderr), which a run must equal.

Each oracle command runs in a session of its own.  When a reducer stops this
checker with SIGTERM, SIGINT or SIGHUP, the checker kills those sessions before
it exits, so that a hanging candidate does not outlive it.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import sys
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

INTERESTING = 0
NOT_INTERESTING = 1
USAGE = 2

CRASH_TOOLS = Path(__file__).resolve().parent.parent / "corpora" / "crash_tools.py"


def load_crash_tools() -> ModuleType:
    spec = importlib.util.spec_from_file_location("corpora_crash_tools", CRASH_TOOLS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["corpora_crash_tools"] = module  # dataclasses looks the module up
    spec.loader.exec_module(module)
    return module


def judge(
    crash_tools: ModuleType,
    case: Any,
    candidate: Path,
    env: Any,
    timeout: float | None,
    reference: tuple[str, str] | None,
) -> tuple[bool, str]:
    """Whether the case's oracle finds ``candidate`` interesting, and what the runs did.

    ``crash_tools.evaluate`` with a per-run ``timeout``, less its signature check.
    """
    oracle = case.oracle
    if oracle.hang is not None:
        timeout = None  # run_oracle_command then waits exactly --hang seconds
    run = crash_tools.run_oracle_command
    if oracle.differential is not None:
        first = run(case, candidate, env, command=oracle.differential[0], timeout=timeout)
        second = run(case, candidate, env, command=oracle.differential[1], timeout=timeout)
        results = [first, second]
        interesting = (first.stdout, first.status) != (second.stdout, second.status)
    else:
        results = [run(case, candidate, env, timeout=timeout)]
        interesting = crash_tools.classify(oracle, results[0], reference)
    what = "; ".join(
        result.status + (f": {result.last_stderr_line[:160]}" if result.last_stderr_line else "")
        for result in results
    )
    return interesting, what


def _kill_sessions(signum: int, frame: FrameType | None) -> None:
    """Kill the oracle commands (session leaders below this process), then exit."""
    me = str(os.getpid())
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:
            continue
        if len(fields) > 1 and fields[1] == me:
            try:
                os.killpg(int(stat.parent.name), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
    sys.exit(128 + signum)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="crash_interesting.py",
        description="Exit 0 iff a crash case's command oracle finds the candidate interesting.",
    )
    parser.add_argument("case", type=Path, help="the case's folder (holding case.toml)")
    parser.add_argument("candidate", type=Path, help="the candidate program")
    parser.add_argument(
        "--tools",
        type=Path,
        help="tool environments folder (default: crash_tools' own, $ASTREDUCE_TOOLS_DIR or "
        "bench/.tools)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        help="seconds per oracle run, unless the oracle looks for a hang (default: crash_tools' "
        "RUN_TIMEOUT)",
    )
    parser.add_argument(
        "--reference-status",
        metavar="STATUS",
        help="for an oracle without classification options: the original's status "
        "('exit N', 'signal SIGSEGV')",
    )
    parser.add_argument(
        "--reference-line",
        metavar="LINE",
        default="",
        help="with --reference-status: the original's last non-empty stderr line",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="say what the runs did")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, _kill_sessions)
    crash_tools = load_crash_tools()
    try:
        case = crash_tools.load_crash_case(args.case)
        env = crash_tools.prepare_tool(case, args.tools)
        if not args.candidate.is_file():
            raise FileNotFoundError(f"no candidate at {args.candidate}")
    except (OSError, ValueError, TypeError, crash_tools.ToolUnavailable) as error:
        print(f"crash_interesting.py: {type(error).__name__}: {error}", file=sys.stderr)
        return USAGE
    reference = None
    if args.reference_status is not None:
        reference = (args.reference_status, args.reference_line)
    interesting, what = judge(crash_tools, case, args.candidate, env, args.timeout, reference)
    if args.verbose:
        print(f"{'interesting' if interesting else 'not interesting'}: {what}", file=sys.stderr)
    return INTERESTING if interesting else NOT_INTERESTING


if __name__ == "__main__":
    sys.exit(main())
