"""Build the stdlib_fractions case: fractions.py with a wrong semiconvergent bound.

Usage: ``python build.py OUTDIR`` writes ``OUTDIR/input.py``: the running
interpreter's ``fractions.py`` with one injected fault, a guard that raises
``RuntimeError`` when ordinary arithmetic breaks, and a check that fails with
``AssertionError: My Test: got 289/92`` (the message is computed, so a reducer
cannot reach it without keeping the faulty computation).
"""

import importlib.util
from pathlib import Path

# The shared helpers live in corpora/stdlib_build.py, one folder up.
_spec = importlib.util.spec_from_file_location(
    "stdlib_build", Path(__file__).resolve().parent.parent / "stdlib_build.py"
)
assert _spec is not None and _spec.loader is not None
sb = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sb)

GUARD = """\
# --- guard: arithmetic, formatting and the easy approximations must still work
def _guard():
    half, third = Fraction(1, 2), Fraction(1, 3)
    if half + third != Fraction(5, 6) or half * third != Fraction(1, 6):
        raise RuntimeError("arithmetic is broken")
    if str(Fraction(6, 4)) != "3/2" or Fraction("0.75") != Fraction(3, 4):
        raise RuntimeError("construction or str is broken")
    pi = Fraction(3141592653589793, 1000000000000000)
    if pi.limit_denominator(10) != Fraction(22, 7):
        raise RuntimeError("limit_denominator(10) is broken")
    if pi.limit_denominator(1000) != Fraction(355, 113):
        raise RuntimeError("limit_denominator(1000) is broken")


try:
    _guard()
except Exception as exc:
    raise RuntimeError("guard failed: %r" % (exc,)) from exc
"""

CHECK = """\
# --- the failing check: the best approximation of pi with a denominator up to 100
got = Fraction(3141592653589793, 1000000000000000).limit_denominator(100)
assert got == Fraction(311, 99), f"My Test: got {got}"
"""


def build(outdir: str) -> Path:
    text = sb.read_stdlib("fractions.py")
    text = sb.replace(
        text,
        "        k = (max_denominator-q0)//q1\n",
        "        k = (max_denominator-q1)//q1\n",
        where="fractions Fraction.limit_denominator",
    )
    text = sb.strip_main_blocks(text)
    header = (
        f"fractions.py from the Python {sb.version()} standard library, built by\n"
        "corpora/stdlib_fractions/build.py. Injected fault: limit_denominator computes\n"
        "the semiconvergent's k from q1 instead of q0."
    )
    return sb.write_input(outdir, header, [text, GUARD, CHECK])


if __name__ == "__main__":
    sb.main(build)
