"""What a candidate's imports cost a test under the exec oracle: its imports against the same program without them.

The fork server imports the original's leading imports once, before it forks
the tests' children (``astreduce.run.forkserver.preload``), so a test
should cost about the same whether its program imports a heavy module or
not. This bench judges programs that import modules (the standard library's
heavy ones, then numpy when it is installed) and the same program without
the imports, alternately, and prints milliseconds a test and their ratio::

    python bench/warm_imports.py               # 40 tests of each program
    python bench/warm_imports.py --tests 200

A ratio near 1 says the imports cost the tests nothing: 1.04 and 1.06 on
this 2-core machine, where the code before the preload (b41d1b9) gave 10.6
for the standard-library program (38 ms a test against 3.3) and 25 for
numpy's (87 ms). Standard library and astreduce only (numpy optional); run
by hand on a quiet machine.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import time

from astreduce.oracles import Target
from astreduce.oracles.execution import ExecOracle

#: Programs that fail the same way, each with the modules it imports first.
PROGRAMS = {
    "stdlib": ("asyncio", "unittest", "xml.dom.minidom", "decimal", "email.message", "argparse"),
    "numpy": ("numpy",),
}
BODY = "raise ValueError('My Test')\n"


def per_test(text: str, tests: int) -> float:
    """Milliseconds a test of ``text`` (calibrated first: its imports are preloaded then)."""
    oracle = ExecOracle(Target.parse("ValueError:My Test"))
    try:
        oracle.calibrate(text)
        started = time.perf_counter()
        for number in range(tests):
            verdict = oracle.judge(f"{text}# {number}\n")  # a new text each time: nothing is cached
            assert verdict.run.exception == "ValueError", verdict.run
        return (time.perf_counter() - started) * 1000 / tests
    finally:
        oracle.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=int, default=40, help="tests of each program in each of 3 rounds (default 40)")
    args = parser.parse_args()
    print(f"{'program':10} {'bare ms':>8} {'imports ms':>10} {'ratio':>6}")
    for name, modules in PROGRAMS.items():
        if importlib.util.find_spec(modules[0].partition(".")[0]) is None:
            print(f"{name:10} (not installed)")
            continue
        imports = "".join(f"import {module}\n" for module in modules)
        bare, warm = [], []
        for _ in range(3):  # alternately: the machine's speed drifts between minutes
            bare.append(per_test(BODY, args.tests))
            warm.append(per_test(imports + BODY, args.tests))
        ratio = statistics.median(w / b for w, b in zip(warm, bare))
        print(f"{name:10} {statistics.median(bare):8.2f} {statistics.median(warm):10.2f} {ratio:6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
