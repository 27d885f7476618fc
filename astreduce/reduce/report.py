"""The JSON report and the exit statuses (docs/results.md), in one place."""

from __future__ import annotations

import json
import platform
import shlex
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol

from astreduce.errors import NotReproducibleError, ReductionStopped
from astreduce.writes import write_atomically
from astreduce.source.measure import Size
from astreduce.run import confine
from astreduce.oracles.options import OracleOptions
from astreduce.reduce.provenance import Provenance
from astreduce.reduce.single import Result
from astreduce.search.session import PassStats, SearchFigures
from astreduce.version import VERSION

EXIT_OK = 0
EXIT_NOT_REPRODUCIBLE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class Concluded(Protocol):
    """What every command's result says of how it ended (a reduction, a tree's, a batch, a comparison...)."""

    @property
    def interrupted(self) -> bool: ...

    @property
    def verified(self) -> bool:
        """Whether what it wrote was run again and reproduced (every bucket, every row...)."""
        ...


def exit_status(ended: Concluded | BaseException | None) -> int:
    """The exit status of a command, for every command, in this one place (black's ``Report.return_code``):
    0 reduced and verified; 1 not reproducible, flaky, or a result that did not verify; 2 bad usage or an
    oracle that cannot work; 130 interrupted. ``ended`` is the command's result, or the error it ended with
    (None: nothing to say, 0)."""
    if ended is None:
        return EXIT_OK
    if isinstance(ended, BaseException):
        if isinstance(ended, (ReductionStopped, KeyboardInterrupt)):
            return EXIT_INTERRUPTED
        if isinstance(ended, NotReproducibleError):
            return EXIT_NOT_REPRODUCIBLE
        return EXIT_USAGE  # UsageError, and every other error astreduce raises on purpose
    if ended.interrupted:
        return EXIT_INTERRUPTED
    return EXIT_OK if ended.verified else EXIT_NOT_REPRODUCIBLE


def _size(path: str | None, size: Size, nodes: int | None) -> dict[str, Any]:
    return {"path": path, "bytes": size.bytes, "lines": size.lines, "tokens": size.tokens, "ast_nodes": nodes}


def outcomes_report(figures: SearchFigures) -> dict[str, int]:
    """How the search's tests ended: FAIL (the original's failure: kept or not), PASS, UNRESOLVED (the candidate
    broke the program, or its test's import or collection, or failed another way). Cache hits and candidates
    answered without a test are not tests."""
    return {
        "FAIL": figures.failing_tests,
        "PASS": figures.tests - figures.failing_tests - figures.unresolved_tests,
        "UNRESOLVED": figures.unresolved_tests,
    }


def passes_report(passes: Iterable[PassStats]) -> list[dict[str, Any]]:
    """Each pass's figures, as every report (single file or tree) lists them."""
    return [
        {
            "name": p.name,
            "tests": p.tests,
            "seconds": round(p.seconds, 3),
            "tokens_before": p.tokens_before,
            "tokens_after": p.tokens_after,
        }
        for p in passes
    ]


def report_dict(result: Result, input_path: str | None, output_path: str | None) -> dict[str, Any]:
    """The report's fields (docs/results.md lists them)."""
    return {
        "input": _size(input_path, result.input_size, result.input_ast_nodes),
        "output": _size(output_path, result.output_size, result.output_ast_nodes),
        "tests": result.tests,
        "cache_hits": result.cache_hits,
        "seconds": round(result.seconds, 3),
        "oracle_seconds": round(result.oracle_seconds, 3),
        "strategy": result.strategy,
        "passes": passes_report(result.passes),
        "verified": result.verified,
        "formatted": result.formatted,
        "interrupted": result.interrupted,
        "history": [list(point) for point in result.history],
        "notes": result.notes,
        "resumed": result.resumed,
        "speculative": result.speculative,
        "syntax_rejections": result.syntax_rejections,
        "outcomes": outcomes_report(result),
        "workers": result.workers,
        "budget_ended": result.budget_ended,
        "target": result.target,
        **provenance_report(result.provenance, {next(iter(result.provenance.files)): output_path or "-"} if result.provenance else None),
    }


def provenance_report(provenance: Provenance | None, relative: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The report's ``origins``, ``failure``, ``renames`` and ``folds`` (empty ones when nothing is known)."""
    if provenance is None:
        return {"origins": {}, "failure": {"raised_at": None, "original": None, "same_place": False}, "renames": {}, "folds": []}
    return provenance.report(relative)


def write_report(
    path: str | Path, result: Result, input_path: str | None, output_path: str | None, options: OracleOptions | None = None,
) -> None:
    write_json(path, report_dict(result, input_path, output_path), options)


def confinement(options: OracleOptions) -> dict[str, Any]:
    """How the candidates ran: ``confined`` (whether this kernel confined them as asked), the Landlock ABI, and
    ``confinement``, which layers of the room held (``docs/sandbox.md``; all false with ``--no-confine``)."""
    abi: int = confine.abi()  # type: ignore[no-untyped-call]  # free of annotations (run under other interpreters)
    held = options.limits().probe()
    return {"confined": options.confine and abi > 0, "landlock_abi": abi if options.confine else 0, "confinement": held}


def is_stdout(path: str | Path | None) -> bool:
    """Whether an output option (``--report``, ``-o``) names standard output (``-``)."""
    return path is not None and str(path) == "-"


def provenance() -> dict[str, str]:
    """Which astreduce made a report, under which Python, from which command line."""
    return {
        "astreduce_version": VERSION,
        "astreduce_python": f"{platform.python_implementation()} {platform.python_version()} ({sys.executable})",
        "command": shlex.join(["astreduce", *sys.argv[1:]]) if sys.argv and "astreduce" in sys.argv[0] else shlex.join(sys.argv),
    }


def write_json(path: str | Path, data: Mapping[str, Any], options: OracleOptions | None = None) -> None:
    """Every command's JSON report, written atomically; with the oracle's options, it says how candidates were confined.

    ``-`` is standard output.
    """
    extras = {**(confinement(options) if options is not None else {}), **provenance()}
    document = {**data, **{key: value for key, value in extras.items() if key not in data}}  # a job's own fields win
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if str(path) == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    write_atomically(path, text.encode("utf-8"))


__all__ = [
    "EXIT_INTERRUPTED", "EXIT_NOT_REPRODUCIBLE", "EXIT_OK", "EXIT_USAGE", "Concluded", "confinement", "exit_status", "report_dict",
    "is_stdout", "write_json", "write_report",
]
