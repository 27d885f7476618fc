"""Where a reduction's tests went: each kind of pass's tests, seconds and tokens taken off, from its report.

A report (``--report R.json``) lists every pass in the order it ran, with
its tests, seconds and sizes. This groups them by the kind of pass (the
transform or deletion, whatever the file, level, depth or rank), optionally
within a window of the run's seconds, and prints the kinds by tests spent,
with the tokens each took off per test: the passes a schedule should run
later, or stop sooner, show at the top with a yield near zero. With the
report's ``outcomes`` it also says how the tests ended::

    python bench/pass_yields.py R.json
    python bench/pass_yields.py R.json --from 300 --to 520 --top 15
    python bench/pass_yields.py first.json second.json   # one table each

The seconds of the window are the passes' own, added up in order (not the
wall clock: the start, merges and coverage measures between passes count
too, so they lag it by a few percent). Standard library only; reads no
file but the reports.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

#: What varies between passes of one kind: the file they ran on, a level, depth or rank, a count of items.
_FILE = re.compile(r"^[^:]+\.(?:py|pyi|pyw|txt|ini|cfg|toml|json|md): ")
_VARYING = (
    (re.compile(r"level \d+"), "level N"),
    (re.compile(r"depth \d+"), "depth N"),
    (re.compile(r" #\d+$"), ""),
    (re.compile(r" \(\d+[^)]*\)"), ""),
)
#: Passes named after one file only (a coverage group of a file, ``unexecuted: FILE (N statements)``).
_OF_A_FILE = re.compile(r"^(unexecuted): .*$")


def kind_of(name: str) -> str:
    """A pass's kind: ``pint/util.py: delete statements, level 2`` -> ``delete statements, level N``."""
    kind = _FILE.sub("", name)
    for pattern, replacement in _VARYING:
        kind = pattern.sub(replacement, kind)
    return _OF_A_FILE.sub(r"\1 (coverage groups)", kind)


def yields(passes: list[dict[str, object]], start: float, end: float) -> dict[str, list[float]]:
    """Kind -> [tests, seconds, tokens taken off, passes] of the passes that ended within [start, end) seconds."""
    table: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0, 0])
    clock = 0.0
    for entry in passes:
        clock += float(entry["seconds"])  # type: ignore[arg-type]
        if not start <= clock < end:
            continue
        row = table[kind_of(str(entry["name"]))]
        row[0] += int(entry["tests"])  # type: ignore[call-overload]
        row[1] += float(entry["seconds"])  # type: ignore[arg-type]
        row[2] += int(entry["tokens_before"]) - int(entry["tokens_after"])  # type: ignore[call-overload]
        row[3] += 1
    return table


def show(path: Path, start: float, end: float, top: int) -> None:
    report = json.loads(path.read_text(encoding="utf-8"))
    table = yields(report.get("passes", []), start, end)
    tests = sum(row[0] for row in table.values())
    window = "" if (start, end) == (0, float("inf")) else f", passes ending in [{start:g}, {end:g}) s"
    print(f"{path}: {report.get('tests')} tests in {report.get('seconds')} s, "
          f"{report['input']['tokens']} -> {report['output']['tokens']} tokens{window}")
    outcomes = report.get("outcomes")
    if outcomes:
        total = sum(outcomes.values()) or 1
        print("  outcomes: " + ", ".join(f"{k} {v} ({100 * v / total:.0f}%)" for k, v in outcomes.items()))
    print(f"  {'kind of pass':<42} {'passes':>6} {'tests':>6} {'share':>6} {'seconds':>8} {'tokens':>7} {'tokens/test':>11}")
    for kind, (count, seconds, taken, runs) in sorted(table.items(), key=lambda item: -item[1][0])[:top]:
        share = 100 * count / tests if tests else 0.0
        rate = taken / count if count else float(taken)
        print(f"  {kind[:42]:<42} {runs:>6} {count:>6} {share:>5.1f}% {seconds:>8.1f} {taken:>7} {rate:>11.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("reports", nargs="+", type=Path, help="reports written by --report")
    parser.add_argument("--from", dest="start", type=float, default=0.0, help="only passes ending at or after these seconds")
    parser.add_argument("--to", dest="end", type=float, default=float("inf"), help="only passes ending before these seconds")
    parser.add_argument("--top", type=int, default=25, help="kinds shown, by tests spent (default 25)")
    args = parser.parse_args(argv)
    for path in args.reports:
        try:
            show(path, args.start, args.end, args.top)
        except (OSError, ValueError, KeyError) as error:
            print(f"pass_yields: {path}: not a report astreduce wrote ({error})", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
