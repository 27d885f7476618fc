"""A longer self-fuzzing run: astreduce on many random programs (run by hand).

    python bench/fuzz.py --programs 2000 [--start 0]

Each program comes from pysource-codegen (seeded); it is reduced against the
synthetic oracle of tests/test_selffuzz.py ("compiles and still contains this
name"). Any exception from astreduce, an output that is not interesting, or an
output larger than its input is a finding: the seed is printed and the run
exits non-zero at the end.
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_selffuzz import ContainsName, names_in, program  # noqa: E402

from astreduce import reduce_source  # noqa: E402
from astreduce.outcome import Outcome  # noqa: E402
from astreduce.source.render import NodeReducer  # noqa: E402
from astreduce.source.tree import parse_or_none  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=1000)
    parser.add_argument("--start", type=int, default=0)
    args = parser.parse_args()
    findings = []
    reduced = skipped = 0
    tokens_in = tokens_out = 0
    started = time.monotonic()
    for seed in range(args.start, args.start + args.programs):
        text = program(seed)
        tree = parse_or_none(text)
        names = sorted(set(names_in(text)) - {"None", "True", "False"})
        if tree is None or not names:
            skipped += 1
            continue
        if NodeReducer(tree).render({}) != text:
            findings.append((seed, "keep-everything does not render the input"))
            continue
        oracle = ContainsName(names[len(names) // 2])
        if oracle.judge(text).outcome is not Outcome.FAIL:
            skipped += 1
            continue
        try:
            result = reduce_source(text, oracle, format=False)
        except Exception:  # a finding: astreduce itself failed
            findings.append((seed, traceback.format_exc(limit=3)))
            continue
        if oracle.judge(result.text).outcome is not Outcome.FAIL or not result.verified:
            findings.append((seed, "output is not interesting"))
        elif result.output_size.tokens > result.input_size.tokens:
            findings.append((seed, "output is larger than the input"))
        reduced += 1
        tokens_in += result.input_size.tokens
        tokens_out += result.output_size.tokens
    seconds = time.monotonic() - started
    print(f"programs: {args.programs}, reduced: {reduced}, skipped: {skipped}, findings: {len(findings)}, "
          f"tokens {tokens_in} -> {tokens_out}, {seconds:.0f} s")
    for seed, what in findings:
        print(f"seed {seed}: {what}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
