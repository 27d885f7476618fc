"""Build crash_cpython313_locals_segfault: textwrap.py (3.13.0) plus a locals() call that crashes.

Usage: ``python build.py OUTDIR`` writes ``OUTDIR/input.py`` (and ``OUTDIR/control.py``,
the module without the trigger).  The module text is read from the standard
library of pyenv's 3.13.0, the interpreter that crashes.

The bug (python/cpython#128396, fixed in 3.13.3 by gh-130235): with PEP 709
(comprehensions inlined into the function's frame) and PEP 667 (``locals()``
reads the frame through a proxy), a comprehension whose loop variable has the
name of a variable that a nested function closes over leaves a plain value in
a slot the frame describes as a cell; ``locals()`` inside the comprehension
reads it as a cell and dereferences garbage: SIGSEGV at run time (compiling is
fine).  CPython 3.12 runs the module.
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
def _wrap_at_widths(text, widths=(20, 40, 70)):
    """Wrap ``text`` at each width; return the local variables seen for each width."""
    wrapped = lambda: wrap(text, width)
    width = 0
    return [locals() for width in widths]


_WIDTH_TABLE = _wrap_at_widths("The quick brown fox jumps over the lazy dog.")
'''


def build(outdir: str) -> Path:
    return ct.build_from_stdlib(
        Path(__file__).resolve().parent,
        outdir,
        module="textwrap.py",
        trigger=TRIGGER,
        before='if __name__ == "__main__":',
        header=(
            "Injected: _wrap_at_widths(), called at import time: locals() in a list\n"
            "comprehension whose loop variable a lambda closes over; CPython 3.13.0\n"
            "segfaults running it (python/cpython#128396)."
        ),
    )


if __name__ == "__main__":
    ct.build_main(build)
