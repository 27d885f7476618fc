"""Build crash_black208b1_unstable: shlex.py (3.8.18) plus an assert black 20.8b1 cannot format.

Usage: ``python build.py OUTDIR`` writes ``OUTDIR/input.py`` (and ``OUTDIR/control.py``,
the module without the trigger).  The module text is read from the standard
library of pyenv's 3.8.18, the interpreter black runs on.

The bug (psf/black#2069, a duplicate of psf/black#1629, fixed in 21.4b0 by
psf/black#2126): black 20.8b1 splits ``assert f(<a multi-line string>) ==
[[...], [...]]`` and adds an optional trailing comma; on its second pass that
comma is a pre-existing "magic" trailing comma, which changes its choice of
optional parentheses, so the stability check fails with ``INTERNAL ERROR: Black
produced different code on the second pass of the formatter`` (exit status
123).  The oracle feeds the candidate on stdin, so black's cache is not used;
black writes a log of the diff to ``$TMPDIR``, which the command points at the
test's own folder.  click is pinned below 8.1, whose removal of
``click._unicodefun`` breaks black releases before 22.3.
"""

import importlib.util
import sys
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "crash_tools", Path(__file__).resolve().parent.parent / "crash_tools.py"
)
assert _spec is not None and _spec.loader is not None
ct = importlib.util.module_from_spec(_spec)
sys.modules["crash_tools"] = ct
_spec.loader.exec_module(ct)

TRIGGER = '''\
def _check_split_positions():
    assert split(
        """
        """
    ) == [[0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32], [26, 2, 30, 3, 34, 4, 38]]
'''


def build(outdir: str) -> Path:
    return ct.build_from_stdlib(
        Path(__file__).resolve().parent,
        outdir,
        module="shlex.py",
        trigger=TRIGGER,
        before="def _print_tokens(lexer):",
        header=(
            "Injected: _check_split_positions(), an assert that black 20.8b1 formats\n"
            "differently on its second pass (psf/black#2069)."
        ),
    )


if __name__ == "__main__":
    ct.build_main(build)
